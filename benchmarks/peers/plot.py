"""Draws the peers figure: time per checkpoint and per restore (log scale) vs
the repository, one line per mechanism, one column per filesystem.
usage: plot.py RESULTS.json OUT.png  (needs matplotlib; scripts/bench-peers pins it)"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from report import FS_NAMES, LABELS, variant_name  # noqa: E402

STYLE = {
    "file-backup": ("tab:gray", "o", "-"),
    "shadow-git": ("tab:red", "s", "-"),
    "ghost-commit": ("tab:orange", "D", "-"),
    "ours-cli": ("tab:blue", "^", "-"),
    "ours-python": ("tab:green", "v", "--"),
    "ours-node": ("tab:purple", "<", "--"),
    "ours-shadow": ("tab:cyan", ">", ":"),
}


def main() -> None:
    results = json.load(open(sys.argv[1]))
    filesystems = list(results["fs"])
    fig, axes = plt.subplots(2, len(filesystems), figsize=(6.5 * len(filesystems), 8.5), squeeze=False, sharey="row")
    for col, fs in enumerate(filesystems):
        variants = results["fs"][fs]
        order = sorted(variants, key=lambda v: (variants[v]["files"], variants[v]["big_untracked_bytes"]))
        names = [variant_name(v, variants[v]).replace(" + ", "\n+ ") for v in order]
        for row, (key, what) in enumerate((("checkpoint_s", "checkpoint"), ("restore_s", "restore"))):
            ax = axes[row][col]
            for mech in STYLE:
                ys = [variants[v]["contenders"].get(mech, {}).get(key) for v in order]
                if all(y is None for y in ys):
                    continue
                color, marker, line = STYLE[mech]
                ax.plot(range(len(order)), [y if y else float("nan") for y in ys], marker=marker,
                        linestyle=line, color=color, label=LABELS[mech].replace("`", ""))
            ax.set_yscale("log")
            ax.set_xticks(range(len(order)), names)
            ax.set_title(f"{what}, {FS_NAMES.get(fs, fs)}")
            ax.set_ylabel(f"seconds per {what} (log)")
            ax.grid(True, which="both", axis="y", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize="small")
    fig.suptitle(f"agent-checkpoint vs peers' checkpoint mechanisms (median of {results['rounds']} rounds, loaded 2-core machine)")
    fig.tight_layout(rect=(0, 0.12, 1, 0.97))
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
