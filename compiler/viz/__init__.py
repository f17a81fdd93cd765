"""Pictures of warpsched schedules (``warpsched-viz``, docs/viz.md).

* ``model``: the lanes of a module's schedules, one per AMD wave group (the
  verifier's ``amd_trace`` streams) or NVIDIA warp role (``nvidia_model``);
* ``cost``: the static cost model that gives every item a duration;
* ``layout``: times on the picture's axis, ``s_barrier``s aligned across lanes;
* ``svg``: the timeline as SVG (or HTML); ``perfetto``: a Chrome trace JSON;
* ``diff``: where two schedules differ, as text and as a side-by-side SVG.
"""
