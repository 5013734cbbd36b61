"""Reference values for lesson 2, "Attention, step by step" (seed 000), from
PyTorch 1.13: the numbers the lesson's new narration and prediction exercises
state (issue 14). Run with /usr/bin/python3; the output is committed as
lesson_attention_step_by_step.ref and the lesson's expects pin the same values."""
import os

import torch
import torch.nn as nn

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lesson_attention_step_by_step.ref")
lines = []


def say(*parts):
    lines.append(" ".join(str(p) for p in parts))



torch.manual_seed(42)
X = torch.randn(3, 5)
W_K = torch.randn(5, 4)
W_Q = torch.randn(5, 4)
K, Q = X @ W_K, X @ W_Q

say("step 3: squared lengths (diagonal of X X^T):", [round(v, 4) for v in (X * X).sum(dim=1).tolist()])
say("step 3: row 0 of the scores with x2 := 2 x0:",
      [round(v, 4) for v in (torch.stack([X[0], X[1], 2 * X[0]]) @ X[0]).tolist()],
      "argmax", int((torch.stack([X[0], X[1], 2 * X[0]]) @ X[0]).argmax()))
S = Q @ K.T
say("step 9: S[2] =", [round(v, 4) for v in S[2].tolist()], "argmax", int(S[2].argmax()))
S = S / 4 ** 0.5
mask = torch.tril(torch.ones(3, 3))
masked_W = torch.softmax(S.masked_fill(mask == 0, float("-inf")) / 4 ** 0.5, dim=1)
say("step 11: -inf entries of an 8x8 causal mask:", int((torch.tril(torch.ones(8, 8)) == 0).sum()))
say("step 13: masked_W[2, 2] =", round(float(masked_W[2, 2]), 4), "masked_W[1, 0] =", round(float(masked_W[1, 0]), 4), "kept:", round(float(masked_W[1, 0] / (1 - 0.5)), 4),
      "kept by Dropout(0.5):", round(float(masked_W[2, 2] / (1 - 0.5)), 4))
drop = nn.Dropout(0.5)
kept = drop(masked_W)
say("step 13: every kept weight is doubled:", bool(torch.all((kept == 0) | torch.isclose(kept, 2 * masked_W))))
heads_out = torch.randn(2, 3, 4)
W_O = nn.Linear(4, 5, bias=False)
say("step 22: W_O(concatenated heads).shape =", tuple(W_O(heads_out).shape),
      "equals heads @ W_O.weight.T:", bool(torch.allclose(W_O(heads_out), heads_out @ W_O.weight.T)))

with open(OUT, "w") as f:
    f.write("\n".join(lines) + "\n")
print("wrote", OUT)
