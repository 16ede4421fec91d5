"""The game designer: search a rule space for better jeopardy dice games (``pigdice design``).

``space`` (the space file: grid or sampled, seeded), ``measures`` (exact measures of one game),
``search`` (every game measured once, in process or on Dask), ``results`` (Parquet, resumable),
``pareto`` (the front and the shortlist), ``report`` (Markdown, plots, rule files) and
``designer`` (all of it, end to end).
"""
