// Package adapt is the adaptive √3 refinement and coarsening of a cloth
// mesh (Bender & Deul 2012 §5, after Kobbelt 2000): the Adapter, its
// change record (Changes) and the curvature criterion's Limits. Topology
// only: the Adapter creates and frees vertex and face slots of a
// geom.Mesh and keeps Adj and Gen valid; the physics layer reads the
// change record (Changes) to update masses, elements and bending edges.
//
// # Generation word (Mesh.Gen)
//
// Gen[f] bits 0–4 hold the generation g (0 for base faces); bit 5+k is the
// mate bit of odd generation 2k+1: it is set on the one child of a 1-to-3
// split of generation 2k+1 whose outer edge is edge 1 of the parent, so
// that the 3-to-1 join restores the parent exactly, rotation included (and
// with it the parent's own flip edge, see below). A face carries the mate
// bits of its whole ancestry; every operation that replaces faces copies
// the bits of the face it derives from. Five bits limit g to 31
// (MaxGeneration); odd generations ≤ 31 need 16 of the 27 mate bits. (The
// paper's "55 generations" would need 6 generation bits.)
//
// # Vertex order conventions (they replace a face-to-edge table)
//
//   - Odd face (a, b, c): child of a 1-to-3 split; c is the inserted centre,
//     edge 0 (a→b) is the outer edge (the parent's edge), and the face across
//     it is its mate: an even face of generation g−1 waiting to be split, or
//     −1 on the boundary. The siblings are across edges 1 and 2.
//   - Flipped even face (x, c', c): made by flipping the outer edge of two
//     odd siblings-to-be; c is its own centre (the vertex its coarsening
//     removes), c' the partner's, edge 1 (c'→c) the flip edge and the face
//     across it the flip partner. Flipped faces of generation 4k+2 have no
//     boundary edge; those of generation 4k+4 may have one at edge 0 or 2
//     (they come from a trisection face, below).
//   - Promoted face (a, b, c) and trisection faces T0 = (c, a, p),
//     M = (c, p, q), T2 = (b, c, q): the boundary rule, below.
//   - Base faces (g = 0) keep the order they were given.
//
// # Boundary (Kobbelt 2000 §4; Bender & Deul §5, fig. 3)
//
// An edge on the boundary cannot be flipped, so boundary faces follow a
// two-step rule that trisects the boundary every other √3 step, in step
// with the interior, whose edges are trisected over two steps:
//
//   - First step (generation 4k → 4k+2): the child (a, b, c) of a split
//     whose outer edge a→b is on the boundary is not flipped but promoted
//     to generation 4k+2 as it is. A promoted face is a face of generation
//     4k+2 with a boundary edge, always edge 0; c is the centre its
//     coarsening removes, and its Gen word keeps the child's mate bits.
//   - Second step (4k+2 → 4k+4): a promoted face is refined by trisecting
//     its boundary edge at p = a+(b−a)/3 and q = a+2(b−a)/3 into
//     T0 = (c, a, p), M = (c, p, q) and T2 = (b, c, q). M is final:
//     generation 4k+4, boundary edge 1. T0 and T2 are odd faces of
//     generation 4k+3 that behave like split children: edge 0 (c→a, b→c)
//     is the outer edge, flipped with the mate across it once that is
//     split, which gives boundary faces of generation 4k+4. Their boundary
//     edge is edge 1 (T0) or edge 2 (T2), which tells them from split
//     children, whose edges 1 and 2 are inner edges.
//
// So two uniform steps cut every boundary edge in three, like the interior
// edges, and make each face nine; g = 6 makes each face 27 (820 → 22140
// for the curtain). Coarsening reverses this: a promoted face is demoted
// to 4k+1 and joined; T0, M and T2 are merged back into the promoted face
// (untrisect) once T0 and T2 are unflipped.
//
// # Invariants (checked by the tests)
//
// Adjacent faces differ by at most one generation; an odd face's mate is
// −1 or an even face of generation g−1; all faces stay counter-clockwise
// in Rest, and no refinement makes a rest angle below MinAngle (a
// refinement that would is not made); the sum of rest areas is constant;
// refine-all then coarsen-all restores the base faces exactly (same slots
// for base vertices, same triples and rotations).
package adapt
