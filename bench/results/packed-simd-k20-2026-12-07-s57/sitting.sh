#!/bin/bash
# Packed-level reads against the static CSR, base and new builds in turn.
for pair in 1 2 3; do
  for b in base new; do
    /work/s57/sg-$b bench w1 --scale 20 --ops reads --homes disk,disk-packed --threads 1 --runs 3 --scratch /tmp --out /work/s57/ab/$b-$pair.tsv > /work/s57/ab/$b-$pair.log 2>&1
  done
done
