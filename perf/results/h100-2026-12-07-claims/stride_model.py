#!/usr/bin/env python3
"""The load model behind builds.txt's "Why claims": b16 512's items (16 sequences x 33 Q-block
slots x 8 KV heads, taken in the kernels' order items - 1 - i) dealt to 264 teams by stride or
claimed in order by whichever team is free first. A team's load is its items' tiles
plus a cost b an item (0 to 3.5 tiles' worth) and 0.3 a slot; prints the busiest team over the mean."""
import heapq

TEAMS, SLOTS, SEQUENCES, KV_HEADS = 264, 33, 16, 8
ITEMS = SEQUENCES * SLOTS * KV_HEADS


def tiles(i):  # slot j < 32 of a sequence: a Q block of 16 tokens, j // 4 + 1 tiles of 64 keys; 32: the spare
    j = (ITEMS - 1 - i) // KV_HEADS % SLOTS
    return 0 if j == 32 else j // 4 + 1


def cost(i, b):
    return tiles(i) + b * (tiles(i) > 0) + 0.3


for b in (0.0, 1.0, 2.0, 3.5):
    mean = sum(cost(i, b) for i in range(ITEMS)) / TEAMS
    stride = [0.0] * TEAMS
    for i in range(ITEMS):
        stride[i % TEAMS] += cost(i, b)
    free = [(0.0, team) for team in range(TEAMS)]
    for i in range(ITEMS):
        t, team = heapq.heappop(free)
        heapq.heappush(free, (t + cost(i, b), team))
    claimed = max(t for t, _ in free)
    print(f"b={b}: stride {max(stride) / mean:.2f}x the mean, claimed {claimed / mean:.2f}x")
