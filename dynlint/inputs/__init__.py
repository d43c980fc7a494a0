"""Input dynamicity: shapes that change because the *data* changes (sequence lengths, image
sizes, a last partial batch), and the cure: bucket boundaries, a bucket-padding collator, a
token-budget batch sampler. Nothing here imports torch at import time."""
