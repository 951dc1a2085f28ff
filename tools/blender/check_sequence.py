"""Test helper of make blender-test (tools/blender/blender_test.go): loads
a frame sequence with load_sequence.py and reports which objects Blender
shows at given frames.

    blender -b --factory-startup --python check_sequence.py -- DIR OUT.json DT K...

DT is the run's step (s). OUT.json gets the scene's frame range and rate,
the number of frame objects and, for each file index K, the
names and vertex counts of the objects visible (in the viewport and in
renders) at scene frame start + K.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import load_sequence  # noqa: E402

import bpy  # noqa: E402


def main(args):
    directory, out_path, dt = args[0], args[1], float(args[2])
    objs = load_sequence.load_sequence(directory, dt)
    scene = bpy.context.scene
    out = {"frame_start": scene.frame_start, "frame_end": scene.frame_end,
           "fps": scene.render.fps / scene.render.fps_base, "objects": len(objs), "frames": []}
    for k in (int(a) for a in args[3:]):
        scene.frame_set(scene.frame_start + k)
        shown = [{"name": o.name, "vertices": len(o.data.vertices)}
                 for o in objs if not o.hide_viewport and not o.hide_render]
        out["frames"].append({"frame": k, "shown": shown})
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(load_sequence.args_after_dashes())
