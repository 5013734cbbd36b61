#!/usr/bin/python3
"""lesson_self_attention_classes.py: what PyTorch 1.13 prints for the lines
lesson 5 (self-attention-classes, seed 002) adds to the notebook: step 8's
counterexample (masking with -inf against zeroing after the softmax and
rescaling, scores [0, 200]) and the parameter counts its prediction exercises
ask for. Run with /usr/bin/python3; the lesson's expects hold these values.
No timing: step 17 measures the machine it runs on, and says no figure of its
own."""
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


def linears(n, d_in, d_out, bias=False):
    return nn.ModuleList([nn.Linear(d_in, d_out, bias=bias) for _ in range(n)])


# the modules' layers, as seed 002's classes build them: a wrapper head holds
# W_query, W_key and W_value; the batched module one set of those and out_proj
print("step 9: the two-head wrapper of width 2 has", count(linears(2 * 3, 3, 2)), "parameters")
gpt2_wrapper = count(linears(12 * 3, 768, 64))
gpt2_batched = count(linears(3, 768, 768)) + count(nn.Linear(768, 768))
print("step 15: GPT-2 wrapper", gpt2_wrapper, "batched", gpt2_batched, "difference", gpt2_batched - gpt2_wrapper)
print("step 15: batched scores", 10 * 12 * 512 * 512)
