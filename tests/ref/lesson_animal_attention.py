#!/usr/bin/python3
# lesson_animal_attention.py: the values lesson 1 (lessons/01-animal-attention.json)
# states beyond what the notebook 004 prints, from the real NumPy and scipy:
# the worked dot product of step 1, the scores of step 10 (lizard and whale
# scoring a neighbour above themselves) and the answers of the prediction
# exercises. The lesson's `expect` entries hold these numbers; rerun with
#     /usr/bin/python3 tests/ref/lesson_animal_attention.py
# and compare after changing them.
import numpy as np
from scipy.special import softmax

mammal = np.array([8.7, 3.2, 4.1])
kitten = np.array([9.1, 1.0, 2.1])
lizard = np.array([0.1, 7.5, 4.3])
salmon = np.array([1.3, 5.5, 8.2])
whale = np.array([7.6, 2.4, 4.0])
wolf = np.array([8.5, 2.7, 2.7])
scaling = np.sqrt(len(mammal))
animals = np.stack([kitten, lizard, salmon, whale, wolf], axis=0)
scores = animals @ animals.T


def show(label, value):
    print(f"{label}: {value!r}")


# step 1: the dot product as a sum of products
show("mammal * kitten", mammal * kitten)
show("mammal[0]*kitten[0] + mammal[1]*kitten[1] + mammal[2]*kitten[2]",
     mammal[0] * kitten[0] + mammal[1] * kitten[1] + mammal[2] * kitten[2])
# step 3: the animal the mammal query weights most (prediction)
show("argmax softmax(mammal@animals.T/scaling)", int(np.argmax(softmax(mammal @ animals.T / scaling))))
# step 4: equal scores (prediction)
show("softmax([5, 5, 5, 5])", softmax(np.array([5.0, 5.0, 5.0, 5.0])))
# step 6: the animal the salmon key weights most as a query (prediction)
show("argmax softmax(salmon@animals.T/scaling)", int(np.argmax(softmax(salmon @ animals.T / scaling))))
# step 10: each row's largest score, and the gaps above the diagonal
show("scores == scores.max(axis=1, keepdims=True)", scores == scores.max(axis=1, keepdims=True))
show("lizard-salmon minus lizard-lizard, whale-wolf and whale-kitten minus whale-whale",
     np.array([scores[1, 2] - scores[1, 1], scores[3, 4] - scores[3, 3], scores[3, 0] - scores[3, 3]]))
show("lengths of lizard and salmon", np.array([np.sqrt(lizard @ lizard), np.sqrt(salmon @ salmon)]))
show("(scores[1, 2] - scores[1, 1]) / scaling", (scores[1, 2] - scores[1, 1]) / scaling)
show("exp of that", np.exp((scores[1, 2] - scores[1, 1]) / scaling))
show("self-attention weights", softmax(scores / scaling, axis=1))
