"""Convert the language-model results released with Cheng & Lippl (2026) into the suite's data file.

Source: github.com/sflippl/ti-with-exceptions, commit a3ef111 ("Added rep sim analysis"), ``data/{ti,exception}/
<hierarchy>__<task>.parquet`` (written by the authors' ``collate_results.py``). Each row is one prompt (a pair of
items in one direction) of one fine-tuning run after training (``phase == "post"``) with its 0/1 ``correct``
(NaN for the in-loop pairs, which have no ground truth and are left out).

Output: ``verify/data/ti_lm_accuracy.npz`` (no pickles) with, per (setting, hierarchy) block ``<setting>__<hier>``:

* ``<block>__pairs`` (P, 2) int: the unordered pairs (higher item, lower item), 1-indexed (I1 on top);
* ``<block>__correct`` (R, P) uint8: correct answers of each run on each pair over its two prompt directions (0–2);
* ``<block>__model``, ``__task`` (R,) str, ``__seed`` (R,) int, ``__reverse`` (R,) bool, ``__l2`` (R,) float
  (probe only; NaN otherwise): the run's identity. A run is one fine-tuning of one model on one domain with one seed
  and one list direction, the unit that is independent of the others.

Kept: full fine-tuning (every hierarchy), the linear probe on the n = 9 hierarchies (every l2), LoRA r = 32 on the
n = 9 hierarchies. Needs pandas and pyarrow (not dependencies of the suite; the file is shipped).
Usage: ``python scripts/convert_ti_lm_data.py DATA_DIR OUT.npz``.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

HIERARCHIES = ("exc_mid_n9", "exc_mid_n11", "exc_far_n11", "ti_n9")
KEEP = {"full": HIERARCHIES, "probe": ("exc_mid_n9", "ti_n9"), "lora": ("exc_mid_n9", "ti_n9")}


def convert(data_dir: Path) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for hier in HIERARCHIES:
        kind = "ti" if hier.startswith("ti") else "exception"
        frame = pd.concat([pd.read_parquet(f) for f in sorted((data_dir / kind).glob(f"{hier}__*.parquet"))])
        frame = frame[(frame["phase"] == "post") & ~frame["no_gt"]]  # in-loop pairs have no right answer
        for setting, hiers in KEEP.items():
            if hier not in hiers:
                continue
            sub = frame[frame["setting"] == setting]
            if setting == "lora":
                sub = sub[sub["lora_r"] == 32]
            sub = sub.assign(l2=sub["l2_reg"].fillna(np.nan))
            run_cols = ["model", "task", "seed", "reverse", "l2"]
            counts = sub.groupby(run_cols + ["rank_higher", "rank_lower"], dropna=False)["correct"].agg(["sum", "count"])
            if not (counts["count"] == 2).all():
                raise ValueError(f"{setting}/{hier}: a pair without exactly two prompt directions")
            table = counts["sum"].unstack(["rank_higher", "rank_lower"])
            if table.isna().any().any():
                raise ValueError(f"{setting}/{hier}: a run without every pair")
            block = f"{setting}__{hier}"
            out[f"{block}__pairs"] = np.array([[h + 1, low + 1] for h, low in table.columns], dtype=np.int64)
            out[f"{block}__correct"] = table.to_numpy().astype(np.uint8)
            runs = table.index.to_frame(index=False)
            out[f"{block}__model"] = runs["model"].to_numpy().astype(str)
            out[f"{block}__task"] = runs["task"].to_numpy().astype(str)
            out[f"{block}__seed"] = runs["seed"].to_numpy().astype(np.int64)
            out[f"{block}__reverse"] = runs["reverse"].to_numpy().astype(bool)
            out[f"{block}__l2"] = runs["l2"].to_numpy().astype(float)
    return out


if __name__ == "__main__":
    arrays = convert(Path(sys.argv[1]))
    np.savez_compressed(sys.argv[2], **arrays)
    for k, v in arrays.items():
        if k.endswith("__correct"):
            print(k, v.shape)
