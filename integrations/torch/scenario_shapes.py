"""The sequence shapes of a kattn scenario case (docs/scenarios.md) exactly as kattn's seeded generator
draws them (draw_batch in src/kattn/workload/generator.cpp), so that bench_op.py times the batches
`kattn bench` times."""
MODELS = {"llama-3-8b": (32, 8, 128), "llama-2-7b": (32, 32, 128), "mqa-small": (16, 1, 64), "tiny": (4, 2, 64)}
MASK64 = (1 << 64) - 1


class MT19937_64:
    """std::mt19937_64: the generator's engine, whose raw outputs are specified bit for bit."""

    def __init__(self, seed):
        self.state = [seed & MASK64]
        for i in range(1, 312):
            previous = self.state[-1]
            self.state.append((6364136223846793005 * (previous ^ (previous >> 62)) + i) & MASK64)
        self.index = 312

    def _twist(self):
        s = self.state
        for i in range(312):
            x = (s[i] & 0xFFFFFFFF80000000) | (s[(i + 1) % 312] & 0x7FFFFFFF)
            s[i] = s[(i + 156) % 312] ^ (x >> 1) ^ (0xB5026F5AA96619E9 if x & 1 else 0)
        self.index = 0

    def __call__(self):
        if self.index >= 312:
            self._twist()
        y = self.state[self.index]
        self.index += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        return (y ^ (y >> 43)) & MASK64


def geometry(case):
    """(num_q_heads, num_kv_heads, head_size) of a case: its model's, or explicit fields."""
    model = MODELS.get(case.get("model"), (None, None, None))
    fields = ("num_q_heads", "num_kv_heads", "head_size")
    return tuple(case.get(field, default) for field, default in zip(fields, model))


def sequence_shapes(case):
    """(query_lens, seq_lens) of the case's batch."""
    rng = MT19937_64(case.get("seed", 1))
    rng()  # the batch's own seed, drawn first; it seeds the values, not the shapes

    def uniform_int(low, high):
        return low + rng() % (high - low + 1)

    batch, high = case.get("batch_size", 1), case["max_seq_len"]
    low = case.get("min_seq_len", high)
    decodes = int(case.get("decode_share", 0.0) * batch + 0.5)  # std::lround of a non-negative value
    max_query = case.get("max_query_len", 0)
    query_lens, seq_lens = [], []
    for s in range(batch):
        seq_len = uniform_int(low, high)
        query_len = seq_len
        if s < decodes:
            query_len = 1
        elif case.get("chunked_prefill", False):
            query_len = seq_len - uniform_int(0, seq_len - 1)
        if s >= decodes and max_query > 0:
            query_len = min(query_len, max_query)
        query_lens.append(query_len)
        seq_lens.append(seq_len)
    return query_lens, seq_lens
