#!/usr/bin/python3
"""lesson_self_attention_classes.py: what PyTorch 1.13 prints for the lines
lesson 5 (self-attention-classes, seed 002) adds to the notebook: step 8's
counterexample (masking with -inf against zeroing after the softmax and
rescaling, scores [0, 200]) and the parameter counts its prediction exercises
ask for. Run with /usr/bin/python3; the lesson's expects hold these values.
`--timing` also times seed 002's GPT-2 modules as step 17's timing does
(eval mode, no_grad, three forwards each): figures for this machine only,
never written into the lesson."""
import sys
import time

import torch
import torch.nn as nn

# step 8: the counterexample, as the lesson's code writes it
two_scores = torch.tensor([0., 200.])
hidden = torch.tensor([False, True])
first_softmax = torch.softmax(two_scores, dim=-1)
print("step 8")
print(first_softmax)
zeroed_two = first_softmax.masked_fill(hidden, 0.0)
print(zeroed_two / zeroed_two.sum(-1, keepdim=True))
print(torch.softmax(two_scores.masked_fill(hidden, -torch.inf), dim=-1))
print(torch.exp(two_scores))
print(torch.tensor(-200.).exp())


def count(m):
    return sum(p.numel() for p in m.parameters())


print("step 3: nn.Linear(3, 2, bias=False) has", count(nn.Linear(3, 2, bias=False)), "parameters")
print("step 8: a 6x6 causal mask has", int(torch.triu(torch.ones(6, 6), diagonal=1).bool().sum()), "masked cells")


class CausalSelfAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, drop_rate):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=False)
        self.W_key = nn.Linear(d_in, d_out, bias=False)
        self.W_value = nn.Linear(d_in, d_out, bias=False)
        self.dropout = nn.Dropout(drop_rate)
        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        query, key, value = self.W_query(x), self.W_key(x), self.W_value(x)
        s = query @ key.transpose(-1, -2)
        s.masked_fill_(self.mask.bool()[:s.shape[1], :s.shape[1]], -torch.inf)
        return self.dropout(torch.softmax(s / value.shape[-1] ** 0.5, dim=-1)) @ value


class Wrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, drop_rate, num_heads):
        super().__init__()
        self.heads = nn.ModuleList([CausalSelfAttention(d_in, d_out, context_length, drop_rate)
                                    for _ in range(num_heads)])

    def forward(self, x):
        return torch.cat([h(x) for h in self.heads], dim=-1)


class Batched(nn.Module):
    """seed 002's MultiHeadSelfAttention, its bug included (keys and values are its queries)"""

    def __init__(self, d_in, d_out, context_length, num_heads, drop_rate):
        super().__init__()
        self.out_dim, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=False)
        self.W_key = nn.Linear(d_in, d_out, bias=False)
        self.W_value = nn.Linear(d_in, d_out, bias=False)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(drop_rate)
        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        n, t, _ = x.shape
        query = self.W_query(x)
        key = self.W_key(x)
        value = self.W_value(x)
        query = query.view(n, t, self.num_heads, self.head_dim)
        key = query.view(n, t, self.num_heads, self.head_dim)
        value = query.view(n, t, self.num_heads, self.head_dim)
        s = query.transpose(1, 2) @ key.transpose(1, 2).transpose(2, 3)
        s.masked_fill_(self.mask.bool()[:t, :t], -torch.inf)
        w = self.dropout(torch.softmax(s / self.head_dim ** 0.5, dim=-1))
        c = (w @ value.transpose(1, 2)).transpose(1, 2).contiguous().view(n, t, self.out_dim)
        return self.out_proj(c)


print("step 9: the two-head wrapper of width 2 has", count(Wrapper(3, 2, 6, 0.0, 2)), "parameters")
gpt2_w = Wrapper(768, 64, 1024, 0.1, 12)
gpt2_b = Batched(768, 768, 1024, 12, 0.1)
print("step 15: GPT-2 wrapper", count(gpt2_w), "batched", count(gpt2_b), "difference", count(gpt2_b) - count(gpt2_w))
print("step 15: batched scores", 10 * 12 * 512 * 512)

if "--timing" in sys.argv:
    batch = torch.rand(size=(10, 512, 768))
    for name, m in (("wrapper", gpt2_w), ("batched", gpt2_b)):
        m.eval()
        with torch.no_grad():
            runs = []
            for _ in range(3):
                t0 = time.perf_counter()
                m(batch)
                runs.append(time.perf_counter() - t0)
        print(name, "eval, no_grad, 3 runs:", " ".join("%.3f s" % r for r in runs), "best %.3f s" % min(runs))
