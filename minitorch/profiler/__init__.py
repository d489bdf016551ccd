"""``minitorch.profiler``: where the time of a forward and backward goes, op by op (``torch.profiler``).

    from minitorch.profiler import profile, record_function, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            model(inputs)
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
    prof.export_chrome_trace("trace.json")     # open it in https://ui.perfetto.dev

Files: ``profiler.py`` (recording: ``profile``, ``record_function``, ``schedule``), ``_events.py`` (the
events, their averages and the table).
"""

from ._events import EventList, FunctionEvent, FunctionEventAvg
from .profiler import ProfilerAction, ProfilerActivity, profile, record_function, schedule, tensorboard_trace_handler

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "ProfilerAction", "ProfilerActivity", "profile",
           "record_function", "schedule", "tensorboard_trace_handler"]
