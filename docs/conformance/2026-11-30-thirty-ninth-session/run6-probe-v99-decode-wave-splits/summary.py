# v99 summary (run from the repository root): the rule plan over choose_plan per problem, the drawn 30 (the last of probe_drawn.json v99) apart; by splits and weight size
import json, math, sys
sys.path.insert(0,'src')
import gzip
res=json.load(gzip.open('docs/conformance/2026-11-30-thirty-ninth-session/run6-probe-v99-decode-wave-splits/v99_probe.json.gz'))
drawn=set(tuple(q) for q in json.load(open('tests/gpu/gemm/probe_drawn.json'))['v99'][-30:])
gm=lambda v: math.exp(sum(map(math.log,v))/len(v)) if v else float('nan')
parts={'corpus+seeds':[], 'drawn':[]}
rows=[]
for r in res:
    new,old=r['rows'][0],r['rows'][1]
    assert new['ok'] and old['ok'], r['shape']
    x=old['ms']/new['ms']
    key=tuple(r['shape'])+(r['dtype'],)
    m,n,k=r['shape']; e=1 if r['dtype']=='e4m3' else 2
    roof_bytes=n*k*e
    rows.append((x,key,new,old,r))
    parts['drawn' if key in drawn else 'corpus+seeds'].append(x)
for p,v in parts.items():
    print(p,len(v),'gm %.3f'%gm(v),'faster>3%% %d slower>3%% %d'%(sum(x>1.03 for x in v),sum(x<0.97 for x in v)), 'min %.3f max %.3f'%(min(v),max(v)))
# by split count and bytes
import collections
g=collections.defaultdict(list)
for x,key,new,old,r in rows:
    e=1 if key[3]=='e4m3' else 2; mb=key[1]*key[2]*e/2**20
    g[(new['config']['split_k'], 'MB<64' if mb<64 else 'MB<160' if mb<160 else 'MB>=160')].append(x)
for k,v in sorted(g.items()): print(k,len(v),'gm %.3f'%gm(v),'slower',sum(x<0.97 for x in v))
print('slowest:')
for x,key,new,old,r in sorted(rows,key=lambda t:t[0])[:10]:
    print('  %.3f'%x,key,'new %.1f old %.1f sp %d'%(new['ms']*1e3,old['ms']*1e3,new['config']['split_k']), 'drawn' if key in drawn else '')
