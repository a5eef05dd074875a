import json, math, sys, collections
d=json.load(open(sys.argv[1]))
R=[]
for pr in d:
    o,nw=pr['rows'][0],pr['rows'][1]
    if not (o['ms'] and nw['ms']): print("missing", pr['shape']); continue
    if not (o['ok'] and nw['ok']): print("BAD", pr['shape'])
    c=nw['config']; M,N,K=pr['shape']
    rows,cols=(N,M) if c['swap_ab'] else (M,N)
    tm=-(-rows//c['bm']); tn=-(-cols//c['bn'])
    R.append(dict(sp=o['ms']/nw['ms'], M=M,N=N,K=K,dt=pr['dtype'],bm=c['bm'],bn=c['bn'],sw=c['swap_ab'],tm=tm,tn=tn,cl=-(-tm//4)*tn,kt=-(-K//c['bk']),old_us=o['ms']*1e3,new_us=nw['ms']*1e3,cub=pr['cublas_ms']*1e3))
def g(xs): return math.exp(sum(math.log(x) for x in xs)/len(xs)) if xs else float('nan')
print("all", len(R), "geo %.3f"%g([r['sp'] for r in R]), "faster>3%", sum(r['sp']>1.03 for r in R), "slower>3%", sum(r['sp']<0.97 for r in R))
for key in ('sw','bm','dt'):
    grp=collections.defaultdict(list)
    for r in R: grp[r[key]].append(r['sp'])
    print(key, {k:(len(v),round(g(v),3)) for k,v in sorted(grp.items())})
grp=collections.defaultdict(list)
for r in R: grp[(r['sw'], r['bm'], min(r['bn'],256)//32*32)].append(r['sp'])
for k,v in sorted(grp.items()): print(k, len(v), round(g(v),3))
R.sort(key=lambda r:r['sp'])
for r in R: print("%.3f %5dx%5dx%5d %s bm%d bn%d sw%d tm%d tn%d cl%d kt%d  %.1f -> %.1f (cuBLAS %.1f)"%(r['sp'],r['M'],r['N'],r['K'],r['dt'],r['bm'],r['bn'],r['sw'],r['tm'],r['tn'],r['cl'],r['kt'],r['old_us'],r['new_us'],r['cub']))
