cd /work/main
for r in 1 2 3; do for mode in "capped" "warm"; do for v in base fused noin; do
  case $v in base) E="X=1";; fused) E="WCC_FUSED=1";; noin) E="WCC_FUSED=1 WCC_NOIN=1";; esac
  if [ $mode = capped ]; then pre="python3 bench/memcap.py --limit 56M --label x --tsv /tmp/x.tsv --cold /work/k20s --"; else pre=""; fi
  t=$(env $E $pre /work/stratagraph-instr bench capped --data /work/data --scale 20 --store /work/k20s --phase reads --memory 64M --threads 1 --runs 1 --reads wcc --out /tmp/w.tsv 2>/dev/null >/dev/null; grep -P "\twcc\t" /tmp/w.tsv | cut -f6,8 | tr '\n' ' '; grep -P "wcc_read" /tmp/w.tsv | cut -f6 | tr '\n' ' ')
  echo "$mode $v $t"
done; done; done
