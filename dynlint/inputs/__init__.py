"""Input dynamicity: what shapes a data loader feeds a model, and whether compilations settle.

`dynlint.inputs.shapes` scans batches, `dynlint.inputs.compiles` reads recompilation records.
Importing this package (and the CLI parsers) never imports torch: the static checker must stay
torch-free, so torch is imported inside the functions that meet tensors.
"""
