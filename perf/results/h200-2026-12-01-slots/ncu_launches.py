# The Q-block launches of ab-ncu.sh's Nsight Compute CSVs, one line each in launch order:
# `python3 ncu_launches.py ncu-launches-NAME.csv[.gz]` gives block and grid size, registers, time
# (ns), warp instructions, local loads and stores (spills).
import csv, gzip, io, sys

opened = gzip.open(sys.argv[1], 'rt') if sys.argv[1].endswith('.gz') else open(sys.argv[1])
lines = [l for l in opened if l.startswith('"')]
rows = list(csv.reader(io.StringIO(''.join(lines))))
idx = {h: i for i, h in enumerate(rows[0])}
launches, order = {}, []
for r in rows[1:]:
    key = r[idx['ID']]
    if key not in launches:
        launches[key] = {}
        order.append(key)
    launches[key][r[idx['Metric Name']]] = r[idx['Metric Value']]
names = ['launch__block_size', 'launch__grid_size', 'launch__registers_per_thread', 'gpu__time_duration.sum',
         'smsp__inst_executed.sum', 'smsp__sass_inst_executed_op_local_ld.sum',
         'smsp__sass_inst_executed_op_local_st.sum']
print('id block grid regs ns instructions local_ld local_st')
for k in order:
    print(k, ' '.join(launches[k].get(n, '-').replace(',', '') for n in names))
