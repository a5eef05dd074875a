import json, math, sys, collections
d=json.load(open(sys.argv[1]))
R=[]
for pr in d:
    o,nw=pr['rows'][0],pr['rows'][1]
    if not (o['ms'] and nw['ms']): continue
    c=nw['config']; M,N,K=pr['shape']; eb=1 if pr['dtype']=='e4m3' else 2
    rows,cols=(N,M) if c['swap_ab'] else (M,N)
    tm=-(-rows//c['bm']); tn=-(-cols//c['bn'])
    R.append(dict(sp=o['ms']/nw['ms'], M=M,N=N,K=K,dt=pr['dtype'],bm=c['bm'],bn=c['bn'],sw=c['swap_ab'],tm=tm,tn=tn,kt=-(-K//c['bk']),old=o['ms']*1e3,cub=pr['cublas_ms']*1e3,
      line=(K*eb)%128==0, sector=(K*eb)%32==0, units=tm*tn))
def g(xs): return (len(xs), round(math.exp(sum(math.log(x) for x in xs)/len(xs)),3), sum(x>1.03 for x in xs), sum(x<0.97 for x in xs)) if xs else None
print("line", g([r['sp'] for r in R if r['line']]), "sector-off-line", g([r['sp'] for r in R if r['sector'] and not r['line']]), "off-sector", g([r['sp'] for r in R if not r['sector']]))
for lo,hi in ((0,15),(15,25),(25,40),(40,80),(80,1e9)):
    print(lo,hi, "line", g([r['sp'] for r in R if r['line'] and lo<=r['old']<hi]), "offline", g([r['sp'] for r in R if not r['line'] and lo<=r['old']<hi]))
for lo,hi in ((0,15),(15,25),(25,40),(40,80),(80,1e9)):
    print(lo,hi, "sw", g([r['sp'] for r in R if r['sw'] and lo<=r['old']<hi]), "unsw", g([r['sp'] for r in R if not r['sw'] and lo<=r['old']<hi]))
print("---- candidate filters (offline rows)")
for X in (16, 24, 32, 40, 48, 64):
    sel=[r['sp'] for r in R if not r['line'] and r['kt']>=X]
    rest=[r['sp'] for r in R if not r['line'] and r['kt']<X]
    print("kt>=",X, g(sel), "excluded", g(rest))
for X in (16, 32, 48, 64, 96):
    sel=[r['sp'] for r in R if not r['line'] and r['kt']*-(-r['units']//132)>=X]
    print("kt*waves>=",X, g(sel))
for r in sorted([r for r in R if not r['line']], key=lambda r:r['kt']):
    print("%.3f kt%4d old %6.1f %5dx%5dx%5d %s bm%d bn%d sw%d tm%d tn%d"%(r['sp'],r['kt'],r['old'],r['M'],r['N'],r['K'],r['dt'],r['bm'],r['bn'],r['sw'],r['tm'],r['tn']))
