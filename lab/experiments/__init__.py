"""One-off device experiments behind the results in docs/data (docs/perf-log.md, docs/tuning.md,
docs/sass-pass.md cite each).  Each is `python3 -m regtile.lab.experiments.NAME [args]` on the
device machine (writes its JSON under $OUT, else the current folder); `--help` says what it
measured and needs no GPU.  They monkeypatch or rewrite what they measure (a module constant,
a cubin's instructions), which is why they live here and not in the package's stages."""
