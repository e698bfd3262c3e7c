#!/usr/bin/env python3
"""The readings table of bots/stud/REPRODUCTION.md from `yomi repro stud --json --sets 1 --reading ...` rows.

Usage: readings_table.py ROWS.json[:LABEL] ...  (LABEL names a file's line).
A file from a run without --reading holds Tables 4.2-4.4 under every reading: it gives one line per
reading, the default first; game length, showdowns and the 4.3.3 points exist for the default only
(the others show "—" unless given by their own --sets 1 --reading file).
Counts are over Tables 4.2-4.4 (deal set 0); a number from the paper is inside when it lies in the row's 95 % interval."""
import json,sys
def inside(r):
    if r.get('seed') is None or r.get('ci95') is None: return False
    lo,hi=r['ci95']; return lo-1e-9<=r['seed']<=hi+1e-9
cols=["wins","final profit","inferior bluffs","bluff successes","superior showdowns","moved >= 10000","moved >= 20000"]
order=['tight-aggressive','tight-passive','loose-aggressive','loose-passive']
def line(rows,label=None,reading=None):
    t=[r for r in rows if r['table'] in ('4.2','4.3','4.4') and reading in (None,r.get('reading'))]
    tot=sum(inside(r) for r in t)
    pc=" / ".join(str(sum(1 for r in t if r['column']==c and inside(r))) for c in cols)
    gl={r['row']:r['ours'] for r in rows if r['table']=='game length' and r['column']=='mean turn a game ends in'}
    sd={r['row']:r['ours'] for r in rows if r['table']=='game length' and r['column']=='showdowns per run'}
    v=lambda c,p:[r['ours'] for r in t if r['column']==c and p(r['row'])]
    m=lambda x:sum(x)/len(x)
    T=lambda x:x.startswith('T'); L=lambda x:x.startswith('L'); S=lambda x:x.endswith('_2'); F=lambda x:not x.endswith('_2')
    ib=f"{m(v('inferior bluffs',T)):.1f} / {m(v('inferior bluffs',L)):.1f}"
    seat=f"+{m(v('wins',lambda x:T(x) and S(x)))-m(v('wins',lambda x:T(x) and F(x))):.0f} / {m(v('wins',lambda x:L(x) and S(x)))-m(v('wins',lambda x:L(x) and F(x))):+.0f}"
    bs=v('bluff successes',L); bst=v('bluff successes',T); ibt=v('inferior bluffs',T)
    rate=sum(bst)/max(1,sum(ibt))
    lp=v('moved >= 10000',lambda x:x.startswith('LP'))
    holds=[r['ours'] for r in rows if r['table']=='4.3.3' and r['column']=='holds, deal set 0']
    lab=label or [r.get('reading') for r in t][0]
    gls=', '.join(f'{gl[k]:.2f}' for k in order) if gl else '—'
    sds=', '.join(f'{sd[k]:.0f}' for k in order) if sd else '—'
    hs=f"{sum(holds):.0f}" if holds else '—'
    print(f"| {lab} | {tot} | {pc} | {gls} | {sds} | {ib} | {seat} | {rate:.2f} | {min(bs):.0f}–{max(bs):.0f} | {min(lp):.0f}–{max(lp):.0f} | {hs} |")
print("| reading | figures from the paper inside (of 168) | wins / profit / inferior bluffs / bluff successes / superior showdowns / ≥ 10000 / ≥ 20000 inside (of 24 each) | mean interval a game ends in (TA, TP, LA, LP) | showdowns per 500 (TA, TP, LA, LP) | inferior bluffs per 500, mean (tight / loose; paper 23–78, mean 44) | seat effect: second − first actor's wins (tight / loose; paper +176 / +147) | bluff success rate against tight models (paper 0.12) | bluff successes against loose models (paper 2–7) | ≥ 10000 against LP (paper 21–41) | §4.3.3 points holding (of 9) |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for a in sys.argv[1:]:
    f,_,lab=a.partition(':')
    rows=json.load(open(f))
    readings=list(dict.fromkeys(r.get('reading') for r in rows if r['table'] in ('4.2','4.3','4.4')))
    if len(readings)==1:
        line(rows,lab or None)
        continue
    line(rows,lab or None,readings[0])
    others=[r for r in rows if r['table'] in ('4.2','4.3','4.4')]
    base=set(readings[0].split(', '))
    for rd in readings[1:]:
        line(others,', '.join(k for k in rd.split(', ') if k not in base),rd)
