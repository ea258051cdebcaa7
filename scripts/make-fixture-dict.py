#!/usr/bin/env python3
# Extracts a tiny real WordNet dict (a few lemmas, their synsets and exceptions)
# from /usr/share/wordnet (Debian wordnet-base) into fixtures/lexicon/dict for tests.
import os,re
src="/usr/share/wordnet"; dst="/work/main/fixtures/lexicon/dict"
os.makedirs(dst,exist_ok=True)
words={"noun":["car","automobile","potato","goose","run","good","happy","climate_change"],"verb":["run","drive"],"adj":["good","happy"],"adv":["well"]}
for pos,ws in words.items():
    idx=open(f"{src}/index.{pos}",encoding="latin-1").read().splitlines()
    header=[l for l in idx if l.startswith("  ")]
    keep=[l for l in idx if not l.startswith(" ") and l.split(" ")[0] in ws]
    offs=set()
    for l in keep:
        f=l.split()
        n=int(f[2]); p=int(f[3]); offs.update(f[6+p:6+p+n])
    open(f"{dst}/index.{pos}","w").write("\n".join(header+keep)+"\n")
    data=open(f"{src}/data.{pos}",encoding="latin-1").read().splitlines()
    dh=[l for l in data if l.startswith("  ")]
    dk=[l for l in data if l[:8] in offs]
    open(f"{dst}/data.{pos}","w").write("\n".join(dh+dk)+"\n")
    exc=open(f"{src}/{pos}.exc").read().splitlines()
    ek=[l for l in exc if l.split()[1] in ws or l.split()[0] in ("geese","ran","better","best")]
    open(f"{dst}/{pos}.exc","w").write("\n".join(ek)+"\n")
