#!/usr/bin/env bash
# In-memory single-edge and batch writes at k20, the session-start build against this session's
# (compactions on their own pool), alternating.
cd /work/main
for r in "new 1" "old 2" "new 2"; do
  set -- $r
  bin=/work/stratagraph-263fd10; [ $1 = new ] && bin=/work/stratagraph-readbytes
  $bin bench w1 --scale 20 --data /work/data --ops insert_single,batch_sizes --homes memory --runs 3 --threads 1,2 --out /work/w1pair/$1-$2.tsv > /work/w1pair/$1-$2.log 2>&1
  echo "$1 $2 exit $? $(date)"
done
