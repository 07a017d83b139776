# Adds clock64 stamps to the rings form (rings/rings.patch applied): python3 stamp_rings.py HEADER [nocopy]
# (nocopy: the steps without their copies and full waits: wrong values, the products and softmax timed alone).
import sys
p=sys.argv[1]; nocopy = len(sys.argv) > 2 and sys.argv[2] == 'nocopy'
s=open(p).read()
def rep(a,b):
    global s
    assert s.count(a)==1,a
    s=s.replace(a,b)
rep('namespace kattn {\n','''namespace kattn {

// Diagnostic: clock64 stamps of team 0's first item's steps, one lane a warpgroup.
static __device__ long long kattn_clocks[2][40][10];
static __device__ int kattn_clocks_printed;
''')
rep('''      const WarpgroupTurns turns{warp / kWarpgroupWarps};
      if (tb < te) {''','''      const WarpgroupTurns turns{warp / kWarpgroupWarps};
#if defined(__CUDA_ARCH__)
      const bool probe = team.league_rank() == 0 && lane == 0 && warp % 4 == 0;
      int step_n = 0;
#define STAMP(k) do { if (probe && step_n < 40) kattn_clocks[warp / 4][step_n][k] = clock64(); } while (0)
#else
#define STAMP(k) do {} while (0)
      int step_n = 0;
#endif
      if (tb < te) {''')
W = '' if nocopy else '''          pipeline_wait(full_k(tile), k_fill(tile) & 1u);
          pipeline_wait(full_v(tile - 1), v_fill(tile - 1) & 1u);
'''
CK = '' if nocopy else '          copy_k(tile + 1);\n'
CV = '' if nocopy else '          copy_v(tile + 1);\n'
rep('''        const auto step = [&](int tile, auto masked) {
          land(tile);
          pipeline_wait(full_k(tile), k_fill(tile) & 1u);
          pipeline_wait(full_v(tile - 1), v_fill(tile - 1) & 1u);
          warpgroup_tile_ready();
          copy_k(tile + 1);
          turns.wait();
          warpgroup_scores_issue<Cache>(q_tile, k_buffer(tile), s);
          warpgroup_accumulate_issue<Cache>(f.o, p, v_buffer(tile - 1));
          turns.pass();
          warpgroup_wait<1>(s);
          pipeline_arrive(empty_k(tile), arrives);
          warp_softmax_weights(f, s, decltype(masked)::value ? mask(s, tile) : rules.scale, alpha);
          copy_v(tile + 1);
        };''','''        const auto step = [&](int tile, auto masked) {
          STAMP(0);
          land(tile);
          STAMP(1);
''' + W + '''          warpgroup_tile_ready();
          STAMP(2);
''' + CK + '''          STAMP(3);
          turns.wait();
          STAMP(4);
          warpgroup_scores_issue<Cache>(q_tile, k_buffer(tile), s);
          STAMP(5);
          warpgroup_accumulate_issue<Cache>(f.o, p, v_buffer(tile - 1));
          STAMP(6);
          turns.pass();
          warpgroup_wait<1>(s);
          STAMP(7);
          pipeline_arrive(empty_k(tile), arrives);
          warp_softmax_weights(f, s, decltype(masked)::value ? mask(s, tile) : rules.scale, alpha);
          STAMP(8);
''' + CV + '''          STAMP(9);
          ++step_n;
        };''')
if nocopy:
    rep('''        land(te);
        pipeline_wait(full_v(te - 1), v_fill(te - 1) & 1u);''','''        land(te);''')
    rep('''        warp_softmax_weights(f, s, mask(s, tb), alpha);
        copy_v(tb + 1);''','''        warp_softmax_weights(f, s, mask(s, tb), alpha);''')
    rep('''        copy_k(tb + 1);
        turns.wait();''','''        turns.wait();''')
rep('''        warpgroup_wait<0>(f.o);
      }
      team_stage_wait(0);  // the Q rows' copies, where the item had no tile
      team.team_barrier();  // every warp's products done: the output rows go through K buffer 0
''','''        warpgroup_wait<0>(f.o);
      }
      team_stage_wait(0);  // the Q rows' copies, where the item had no tile
      team.team_barrier();  // every warp's products done: the output rows go through K buffer 0
#if defined(__CUDA_ARCH__)
      if (team.league_rank() == 0 && team.team_rank() == 0 && lane == 0 && te - tb > 20 &&
          atomicAdd(&kattn_clocks_printed, 1) == 0) {
        const int n = te - tb - 1 < 40 ? te - tb - 1 : 40;
        const long long t0 = kattn_clocks[0][0][0];
        for (int i = 0; i < n; ++i)
          for (int g = 0; g < 2; ++g) {
            const long long* c = kattn_clocks[g][i];
            printf("KCLK wg %d step %d at %lld d %lld %lld %lld %lld %lld %lld %lld %lld %lld\\n", g, i, c[0] - t0,
                   c[1] - c[0], c[2] - c[1], c[3] - c[2], c[4] - c[3], c[5] - c[4], c[6] - c[5], c[7] - c[6],
                   c[8] - c[7], c[9] - c[8]);
          }
      }
#endif
''')
open(p,'w').write(s)
