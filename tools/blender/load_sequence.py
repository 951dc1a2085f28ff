"""Load a drape frame sequence with changing topology into Blender.

"drape run --out DIR [--every K] [--format obj|ply]" writes one mesh per
K steps, DIR/frame_000000.obj, frame_000010.obj, ...: the adaptive mesh
itself, whose vertex count changes from frame to frame, which no point
cache can carry. This script imports every frame as its own object in a
collection "drape frames" and keyframes their visibility (viewport and
render, constant interpolation) so that file k shows at scene frame
start + k and at no other.

Axes: drape is Y up; every frame object is stood up with a rotation of +90
degrees about X, as Blender's OBJ importer does (its PLY importer does
not).

Run it from a shell:

    blender --python tools/blender/load_sequence.py -- DIR [--dt S] [--save FILE.blend]

With --dt (the scene's step, s: "dt" in drape run --stats), the scene's
rate is set so that the files play in simulated time: the files are K
steps apart (read from their names), so fps = 1/(K*dt). Every frame is a
full mesh in memory: for long runs, take fewer frames (--every).
Tested with Debian's Blender 3.4.1 (make blender-test).
"""

import math
import os
import re
import sys

import bpy

FRAME_FILE = re.compile(r"^frame_(\d+)\.(obj|ply)$")


def frame_files(directory):
    """Returns [(step, path)] of DIR's frame files, by step."""
    out = []
    for name in os.listdir(directory):
        m = FRAME_FILE.match(name)
        if m:
            out.append((int(m.group(1)), os.path.join(directory, name)))
    out.sort()
    if not out:
        raise RuntimeError("%s: no frame_NNNNNN.obj or .ply files" % directory)
    return out


def import_mesh(path):
    """Imports one OBJ or PLY file and returns its object."""
    before = set(bpy.data.objects)
    if path.endswith(".ply"):
        if "ply_import" in dir(bpy.ops.wm):  # Blender 3.6 and later
            bpy.ops.wm.ply_import(filepath=path)
        else:
            bpy.ops.import_mesh.ply(filepath=path)
    elif "obj_import" in dir(bpy.ops.wm):
        bpy.ops.wm.obj_import(filepath=path)
    else:
        bpy.ops.import_scene.obj(filepath=path, split_mode='OFF')
    new = [o for o in bpy.data.objects if o not in before]
    if len(new) != 1:
        raise RuntimeError("%s: imported %d objects, want 1" % (path, len(new)))
    return new[0]


def key_visible(obj, frame, visible):
    """Keyframes obj's viewport and render visibility at frame."""
    obj.hide_viewport = obj.hide_render = not visible
    obj.keyframe_insert("hide_viewport", frame=frame)
    obj.keyframe_insert("hide_render", frame=frame)


def load_sequence(directory, dt=None):
    """Imports DIR's frame files, keyframes their visibility and returns
    the objects, one per file, in order."""
    files = frame_files(directory)
    scene = bpy.context.scene
    coll = bpy.data.collections.new("drape frames")
    scene.collection.children.link(coll)
    start = scene.frame_start
    objs = []
    for k, (step, path) in enumerate(files):
        obj = import_mesh(path)
        for c in list(obj.users_collection):
            c.objects.unlink(obj)
        coll.objects.link(obj)
        obj.name = "frame_%06d" % step
        obj.rotation_euler = (math.pi / 2, 0.0, 0.0)
        f = start + k
        if k > 0:
            key_visible(obj, f - 1, False)  # and before, by constant extrapolation
        key_visible(obj, f, True)
        if k + 1 < len(files):
            key_visible(obj, f + 1, False)
        if obj.animation_data and obj.animation_data.action:
            for fc in obj.animation_data.action.fcurves:
                for kp in fc.keyframe_points:
                    kp.interpolation = 'CONSTANT'
        objs.append(obj)
    scene.frame_end = start + len(files) - 1
    if dt and len(files) > 1:
        every = files[1][0] - files[0][0]
        fps = 1.0 / (every * dt)
        scene.render.fps = max(1, round(fps))
        scene.render.fps_base = scene.render.fps / fps
    scene.frame_set(start)
    return objs


def args_after_dashes():
    """Returns the command-line arguments after "--"."""
    argv = sys.argv
    return argv[argv.index("--") + 1:] if "--" in argv else []


def main(args):
    if not args or args[0].startswith("-"):
        raise SystemExit("usage: blender --python load_sequence.py -- DIR [--dt S] [--save FILE.blend]")
    dt = float(args[args.index("--dt") + 1]) if "--dt" in args else None
    objs = load_sequence(args[0], dt)
    print("drape: %d frames, frames %d-%d" % (len(objs), bpy.context.scene.frame_start, bpy.context.scene.frame_end))
    if "--save" in args:
        bpy.ops.wm.save_as_mainfile(filepath=os.path.abspath(args[args.index("--save") + 1]))


if __name__ == "__main__":
    main(args_after_dashes())
