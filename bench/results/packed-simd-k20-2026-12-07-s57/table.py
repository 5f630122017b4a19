import glob,collections,statistics,sys
d=sys.argv[1] if len(sys.argv)>1 else '.'
rows=collections.defaultdict(dict)
for f in sorted(glob.glob(d+'/*.tsv')):
    b,pair=f.split('/')[-1][:-4].split('-')
    for line in open(f):
        p=line.rstrip('\n').split('\t')
        if line.startswith(('#','system')) or len(p)<7: continue
        try: rows[(b,pair)][(p[0],p[3])]=float(p[5])
        except: pass
ops=['search_edge','scan_seq','scan_rand','bfs','pr','wcc','sssp']
for sysname in ['stratagraph-disk-packed','stratagraph-disk']:
    print(f'{sysname} / csr (search_edge: csr rate / store rate); sittings 1-3, then median')
    print('op','base','new',sep='\t')
    for op in ops:
        cols=[]
        for b in ('base','new'):
            rs=[]
            for p in '123':
                r=rows[(b,p)]; c=r.get(('csr',op)); k=r.get((sysname,op))
                rs.append(c/k if op=='search_edge' else k/c)
            cols.append(' '.join(f'{x:.2f}' for x in rs)+f' | {statistics.median(rs):.2f}')
        print(op,*cols,sep='\t')
