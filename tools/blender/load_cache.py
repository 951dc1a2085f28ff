"""Load a drape point cache into Blender as an animated mesh.

"drape run --out DIR --cache pc2|mdd" writes DIR/cache.obj (one mesh of
fixed topology, vt = the cloth's material coordinates in metres),
DIR/cache.pc2 or DIR/cache.mdd (its vertex positions frame after frame) and
DIR/cache.json (what the two hold: frame count, rate, vertex count). This
script imports the OBJ, attaches the cache with a Mesh Cache modifier and
sets the scene's frame range and rate to the cache's, so that the scene's
first frame plays the cache's frame 0.

Axes: drape is Y up and writes the cache in the OBJ's own coordinates.
Blender's OBJ importer (checked in 3.4.1) keeps the file's coordinates in the mesh
and stands the object up with a rotation of +90 degrees about X; the Mesh
Cache modifier deforms the mesh in those same coordinates, so its axes stay
at their defaults (Forward +Y, Up +Z).

Run it from a shell:

    blender --python tools/blender/load_cache.py -- DIR [--save FILE.blend]

(add -b to work without a window, e.g. with --save), or from Blender's
Text Editor: open the file, set DIR in the last lines' call, Run Script.
Tested with Debian's Blender 3.4.1 (make blender-test).
"""

import json
import math
import os
import sys

import bpy


def read_manifest(directory):
    """Returns the parsed DIR/cache.json."""
    with open(os.path.join(directory, "cache.json")) as f:
        return json.load(f)


def import_obj(path):
    """Imports the OBJ at path as it is (one object, the file's vertex
    order) and returns the new object."""
    before = set(bpy.data.objects)
    if "obj_import" in dir(bpy.ops.wm):  # Blender 3.2 and later
        bpy.ops.wm.obj_import(filepath=path)
    else:
        bpy.ops.import_scene.obj(filepath=path, split_mode='OFF')
    new = [o for o in bpy.data.objects if o not in before]
    if len(new) != 1:
        raise RuntimeError("%s: imported %d objects, want 1" % (path, len(new)))
    return new[0]


def set_rate(scene, fps):
    """Sets the scene's frame rate to fps frames per second (Blender keeps
    it as the integer fps over fps_base)."""
    scene.render.fps = max(1, round(fps))
    scene.render.fps_base = scene.render.fps / fps


def load_cache(directory):
    """Imports DIR/cache.obj, attaches DIR's point cache with a Mesh Cache
    modifier, sets the scene's frames to the cache's and returns the
    object."""
    man = read_manifest(directory)
    obj = import_obj(os.path.join(directory, man["mesh"]))
    obj.name = man["scene"]
    if len(obj.data.vertices) != man["vertices"]:
        raise RuntimeError("%s has %d vertices, the cache %d" % (man["mesh"], len(obj.data.vertices), man["vertices"]))
    # drape is Y up: stand the object up, as the OBJ importer does (a
    # legacy importer may not have).
    obj.rotation_euler = (math.pi / 2, 0.0, 0.0)
    scene = bpy.context.scene
    mod = obj.modifiers.new("drape cache", 'MESH_CACHE')
    mod.cache_format = man["format"].upper()
    mod.filepath = os.path.abspath(os.path.join(directory, man["cache"]))
    mod.time_mode = 'FRAME'
    mod.play_mode = 'SCENE'
    mod.frame_start = scene.frame_start  # the scene's first frame plays frame 0
    mod.frame_scale = 1.0
    mod.forward_axis, mod.up_axis = 'POS_Y', 'POS_Z'  # the OBJ's coordinates
    scene.frame_end = scene.frame_start + man["frames"] - 1
    set_rate(scene, man["fps"])
    scene.frame_set(scene.frame_start)
    return obj


def args_after_dashes():
    """Returns the command-line arguments after "--"."""
    argv = sys.argv
    return argv[argv.index("--") + 1:] if "--" in argv else []


def main(args):
    if not args or args[0].startswith("-"):
        raise SystemExit("usage: blender --python load_cache.py -- DIR [--save FILE.blend]")
    obj = load_cache(args[0])
    print("drape: %s: %d vertices, frames %d-%d" % (obj.name, len(obj.data.vertices),
                                                   bpy.context.scene.frame_start, bpy.context.scene.frame_end))
    if "--save" in args:
        bpy.ops.wm.save_as_mainfile(filepath=os.path.abspath(args[args.index("--save") + 1]))


if __name__ == "__main__":
    main(args_after_dashes())
