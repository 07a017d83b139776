// Does sm_90a have a packed exponential? 64 dependent exponentials of an f16x2 pair, in three forms
// (FORM 0: ex2.approx.f16x2; 1: two ex2.approx.f16 and a repack; 2: none, the loop's xor alone).
// No disassembler here: the kernel's .text size (16 bytes an instruction) tells what ptxas made:
//   for f in 0 1 2; do nvcc -arch=sm_90a -cubin -DFORM=$f -o f$f.cubin ex2_f16x2.cu;
//     readelf -S -W f$f.cubin 2>/dev/null | grep text; done
// nvcc 13.0, 2026-12-06: 0x1180, 0x1180, 0x180 bytes — ex2.approx.f16x2 is the two scalar forms
// (about three instructions a pair past the loop's: two MUFU.EX2 and a repack), as on sm_120.
__global__ void k(const unsigned* x, unsigned* y) {
  unsigned v = x[threadIdx.x];
#pragma unroll
  for (int j = 0; j < 64; ++j) {
#if FORM == 0
    asm volatile("ex2.approx.f16x2 %0, %0;" : "+r"(v));
#elif FORM == 1
    asm volatile("{.reg .f16 l, h; mov.b32 {l, h}, %0; ex2.approx.f16 l, l; ex2.approx.f16 h, h; mov.b32 %0, {l, h};}"
                 : "+r"(v));
#endif
    v ^= j;
  }
  y[threadIdx.x] = v;
}
