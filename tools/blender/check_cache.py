"""Test helper of make blender-test (tools/blender/blender_test.go): loads
a point cache with load_cache.py and reports what Blender plays.

    blender -b --factory-startup --python check_cache.py -- DIR EXPECT.json OUT.json

EXPECT.json holds {"frames": [k, ...], "positions": [[x0, y0, z0, x1, ...], ...]}:
drape's positions (its Y-up frame, m) at cache frames k. OUT.json gets the
object's vertex count, the scene's frame range and rate, and per frame
the largest coordinate difference between Blender's evaluated mesh and
drape's, in the mesh's own coordinates ("local") and in Blender's world
after the object's rotation, against drape's (x, -z, y) ("world").
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import load_cache  # noqa: E402

import bpy  # noqa: E402


def main(args):
    directory, expect_path, out_path = args[:3]
    with open(expect_path) as f:
        expect = json.load(f)
    obj = load_cache.load_cache(directory)
    scene = bpy.context.scene
    out = {
        "vertices": len(obj.data.vertices),
        "frame_start": scene.frame_start,
        "frame_end": scene.frame_end,
        "fps": scene.render.fps / scene.render.fps_base,
        "frames": [],
    }
    for k, want in zip(expect["frames"], expect["positions"]):
        scene.frame_set(scene.frame_start + k)
        dg = bpy.context.evaluated_depsgraph_get()
        ev = obj.evaluated_get(dg)
        me = ev.to_mesh()
        world = ev.matrix_world
        local_err = world_err = 0.0
        for i, v in enumerate(me.vertices):
            x, y, z = want[3 * i:3 * i + 3]
            local_err = max(local_err, abs(v.co.x - x), abs(v.co.y - y), abs(v.co.z - z))
            w = world @ v.co
            world_err = max(world_err, abs(w.x - x), abs(w.y + z), abs(w.z - y))
        out["frames"].append({"frame": k, "vertices": len(me.vertices), "local": local_err, "world": world_err})
        ev.to_mesh_clear()
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(load_cache.args_after_dashes())
