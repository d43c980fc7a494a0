"""Input dynamicity: shapes that change because the *data* changes (sequence lengths, image
sizes, a last partial batch), and the cure.

`shapes` scans the batches a loader produces, `compiles` reads recompilation records and says
whether they settle, `buckets` chooses bucket boundaries (with a bucket-padding collator and a
token-budget batch sampler). Importing this package (and the CLI parsers) never imports torch:
the static checker must stay torch-free, so torch is imported inside the functions that meet
tensors.
"""
