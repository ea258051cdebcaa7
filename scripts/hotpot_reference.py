#!/usr/bin/env python3
"""Reference implementations of the two HotpotQA metric sets, used to check
corpus-eval's numbers and as the baseline of the speed benchmark.

  hotpot_reference.py simple PREDICTIONS GOLD    # the six-metric framework's evaluate_batch
  hotpot_reference.py official PREDICTIONS GOLD  # the loops of hotpot_evaluate_v1.py

Prints one JSON object with the averaged metrics and n.
"""
import json
import re
import string
import sys
from collections import Counter


def normalize_answer(s):
    def remove_articles(text):
        return re.sub(r'\b(a|an|the)\b', ' ', text)

    def white_space_fix(text):
        return ' '.join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return ''.join(ch for ch in text if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(s.lower())))


# ---- simple format (the generation-quality framework) ----

def s_em(pred, gold):
    return float(normalize_answer(pred) == normalize_answer(gold))


def s_f1(pred, gold):
    p, g = normalize_answer(pred), normalize_answer(gold)
    if p == 'insufficient context' and g == 'insufficient context':
        return 1.0
    pt, gt = p.split(), g.split()
    if not pt and not gt:
        return 1.0
    if not pt or not gt:
        return 0.0
    same = sum((Counter(pt) & Counter(gt)).values())
    if same == 0:
        return 0.0
    pr, rc = same / len(pt), same / len(gt)
    return 2 * pr * rc / (pr + rc)


def cit_p(pred, gold):
    if not pred:
        return 1.0 if not gold else 0.0
    return len(set(pred) & set(gold)) / len(set(pred))


def cit_r(pred, gold):
    if not gold:
        return 1.0 if not pred else 0.0
    return len(set(pred) & set(gold)) / len(set(gold))


def cit_f1(pred, gold):
    p, r = cit_p(pred, gold), cit_r(pred, gold)
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def simple(pred_file, gold_file):
    with open(pred_file) as f:
        preds = json.load(f)
    with open(gold_file) as f:
        gold = json.load(f)
    assert len(preds) == len(gold)
    m = {k: [] for k in ['answer_f1', 'answer_em', 'citation_precision', 'citation_recall',
                         'citation_f1', 'insufficient_context_detection']}
    for p, g in zip(preds, gold):
        pc, gc = p.get('citations', []), g.get('citations', [])
        m['answer_f1'].append(s_f1(p['answer'], g['answer']))
        m['answer_em'].append(s_em(p['answer'], g['answer']))
        m['citation_precision'].append(cit_p(pc, gc))
        m['citation_recall'].append(cit_r(pc, gc))
        m['citation_f1'].append(cit_f1(pc, gc))
        if normalize_answer(g['answer']) == 'insufficient context':
            m['insufficient_context_detection'].append(
                float(normalize_answer(p['answer']) == 'insufficient context'))
    out = {k: (sum(v) / len(v) if v else 0.0) for k, v in m.items()}
    out['n'] = len(gold)
    return out


# ---- official format (hotpot_evaluate_v1.py's loops) ----

def f1_score(prediction, ground_truth):
    np_, ng = normalize_answer(prediction), normalize_answer(ground_truth)
    zero = (0, 0, 0)
    if np_ in ['yes', 'no', 'noanswer'] and np_ != ng:
        return zero
    if ng in ['yes', 'no', 'noanswer'] and np_ != ng:
        return zero
    pt, gt = np_.split(), ng.split()
    same = sum((Counter(pt) & Counter(gt)).values())
    if same == 0:
        return zero
    precision, recall = 1.0 * same / len(pt), 1.0 * same / len(gt)
    return (2 * precision * recall) / (precision + recall), precision, recall


def update_answer(metrics, prediction, gold):
    em = normalize_answer(prediction) == normalize_answer(gold)
    f1, prec, recall = f1_score(prediction, gold)
    metrics['em'] += float(em)
    metrics['f1'] += f1
    metrics['prec'] += prec
    metrics['recall'] += recall
    return em, prec, recall


def update_sp(metrics, prediction, gold):
    cur, gold_sp = set(map(tuple, prediction)), set(map(tuple, gold))
    tp = fp = fn = 0
    for e in cur:
        if e in gold_sp:
            tp += 1
        else:
            fp += 1
    for e in gold_sp:
        if e not in cur:
            fn += 1
    prec = 1.0 * tp / (tp + fp) if tp + fp > 0 else 0.0
    recall = 1.0 * tp / (tp + fn) if tp + fn > 0 else 0.0
    f1 = 2 * prec * recall / (prec + recall) if prec + recall > 0 else 0.0
    em = 1.0 if fp + fn == 0 else 0.0
    metrics['sp_em'] += em
    metrics['sp_f1'] += f1
    metrics['sp_prec'] += prec
    metrics['sp_recall'] += recall
    return em, prec, recall


def official(pred_file, gold_file):
    with open(pred_file) as f:
        prediction = json.load(f)
    with open(gold_file) as f:
        gold = json.load(f)
    metrics = {k: 0 for k in ['em', 'f1', 'prec', 'recall', 'sp_em', 'sp_f1', 'sp_prec',
                              'sp_recall', 'joint_em', 'joint_f1', 'joint_prec', 'joint_recall']}
    for dp in gold:
        cur_id = dp['_id']
        can_eval_joint = True
        if cur_id not in prediction['answer']:
            can_eval_joint = False
        else:
            em, prec, recall = update_answer(metrics, prediction['answer'][cur_id], dp['answer'])
        if cur_id not in prediction['sp']:
            can_eval_joint = False
        else:
            sp_em, sp_prec, sp_recall = update_sp(metrics, prediction['sp'][cur_id],
                                                  dp['supporting_facts'])
        if can_eval_joint:
            joint_prec, joint_recall = prec * sp_prec, recall * sp_recall
            if joint_prec + joint_recall > 0:
                joint_f1 = 2 * joint_prec * joint_recall / (joint_prec + joint_recall)
            else:
                joint_f1 = 0.
            metrics['joint_em'] += em * sp_em
            metrics['joint_f1'] += joint_f1
            metrics['joint_prec'] += joint_prec
            metrics['joint_recall'] += joint_recall
    n = len(gold)
    for k in metrics:
        metrics[k] /= n
    metrics['n'] = n
    return metrics


if __name__ == '__main__':
    mode, pred_file, gold_file = sys.argv[1:4]
    result = simple(pred_file, gold_file) if mode == 'simple' else official(pred_file, gold_file)
    print(json.dumps(result))
