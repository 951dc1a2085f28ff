// Package obstacle holds the rigid obstacles a cloth collides with
// (Bender & Deul 2012 §6; the sphere of §7 fig. 7): an infinite plane
// (the ground), a sphere, an oriented box, a capsule, a capped cylinder and
// a triangle mesh read from an OBJ file. Each is built from a Spec (the
// JSON element of a scene's "obstacles" list, validated with clear errors)
// and offers what the collision pipeline and the viewer need: its surface
// as a closed, outward-facing triangle mesh whose vertices follow a
// scripted motion (keys interpolated linearly, rotations by slerp) plus a
// user offset (the mouse drag), an exact signed distance with the outward
// normal (analytic for the primitives; for meshes the closest triangle
// with the angle-weighted pseudo-normal sign test of Bærentzen & Aanæs
// 2005, through a bounding-volume hierarchy), bounds and the friction
// coefficient μ used by Bridson, Fedkiw & Anderson 2002 §7.2's Coulomb
// friction. Poses are unit quaternions plus translations (Quat, Pose).
package obstacle
