"""``cinecap train sft|grpo|export-swift``: training rounds from gold pairs to a model version.

Every setting is a flag generated from the stage's config dataclass (``cinecap.training.config``);
``--config FILE`` reads the same settings from a JSON object (flags win), and
``CINECAP_TRAIN_<SETTING>`` variables set defaults. Progress goes to stdout as JSON lines:
``{"event": "start" | "step" | "checkpoint" | "done", "stage", "step", "max_steps", "loss" (SFT) or
"reward" (GRPO), "eta_s", …}``; the model version directory gets the same lines in events.jsonl
and a COMPLETE marker once everything is written (docs/training.md).
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import Any

log = logging.getLogger(__name__)

STAGES = {
    "sft": "supervised fine-tuning on atomic chain of thought (TRL SFTTrainer, video collator)",
    "grpo": "GRPO on video with the judge and the gated coverage reward (our accelerate loop)",
}


def add_parser(sub: argparse._SubParsersAction) -> None:
    from cinecap.training.config import COT_MODES, ANCHOR_MODES, CONFIGS, GRPOConfig, add_arguments

    p = sub.add_parser("train", help="train a model version from gold pairs (SFT, GRPO)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    stages = p.add_subparsers(dest="stage", metavar="STAGE")
    for name, help_text in STAGES.items():
        s = stages.add_parser(name, help=help_text, description=help_text)
        s.add_argument("--config", metavar="FILE", help="JSON object of settings (flags win)")
        s.add_argument("--resume", action="store_true",
                       help="continue the unfinished run in --out from its last checkpoint")
        add_arguments(s, CONFIGS[name])
        s.set_defaults(func=run, config_cls=name)
    e = stages.add_parser(
        "export-swift", help="write SFT/GRPO data, the reward plugin and commands for ms-swift",
        description="Write the gold pairs as ms-swift SFT and GRPO datasets, the CineCap reward as "
                    "an ms-swift reward plugin, and the swift sft / swift rlhf commands "
                    "(docs/training.md, 'At the paper's scale'). Settings are the GRPO ones.")
    e.add_argument("--config", metavar="FILE", help="JSON object of GRPO settings (flags win)")
    e.add_argument("--cot", choices=COT_MODES, default="atomic", help="SFT targets (default: atomic)")
    e.add_argument("--anchors", choices=ANCHOR_MODES, default="auto",
                   help="evidence for timed statements without any (default: auto)")
    e.add_argument("--sft-config", metavar="FILE",
                   help="JSON object of SFT settings for the SFT data and command (epochs, "
                        "learning_rate, per_device_batch_size, …); the rest follow the GRPO ones")
    add_arguments(e, GRPOConfig)
    e.set_defaults(func=run_export)
    p.set_defaults(func=lambda args: _usage(p))


def _usage(p: argparse.ArgumentParser) -> int:
    p.print_help(sys.stderr)
    return 2


def _print_event(event: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(event, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def _quiet_libraries() -> None:
    import warnings

    from transformers.utils import logging as hf_logging

    # Renames announced for transformers 6 (gradient → activation checkpointing), raised from
    # inside TRL and transformers: noise for a person running a round.
    warnings.filterwarnings("ignore", category=FutureWarning, module=r"transformers\..*")

    hf_logging.disable_progress_bar()  # stdout carries JSON lines only
    hf_logging.set_verbosity_error()


def run(args: argparse.Namespace) -> int:
    from cinecap.errors import CinecapError, TrainingError
    from cinecap.training.config import CONFIGS, from_args

    from cinecap.training.version import VersionDir

    cfg = from_args(CONFIGS[args.config_cls], args, args.config)
    VersionDir(cfg.out).check(args.resume)  # a wrong --out fails before the libraries load
    _quiet_libraries()
    try:
        if args.config_cls == "sft":
            from cinecap.training.sft import run_sft

            run_sft(cfg, events=_print_event, resume=args.resume)
        else:
            from cinecap.training.grpo import run_grpo

            run_grpo(cfg, events=_print_event, resume=args.resume)
    except (CinecapError, KeyboardInterrupt):
        raise
    except Exception as e:  # noqa: BLE001 - a library failure becomes one line, not a traceback
        log.debug("training failed", exc_info=True)
        first = (str(e).strip().splitlines() or [""])[0][:300]
        hint = ""
        if "out of memory" in first.lower():
            hint = ("; lower max_tokens_per_frame, max_frames, max_new_tokens or "
                    "forward_batch_size, or use LoRA")
        raise TrainingError(f"the {args.config_cls} run failed: {type(e).__name__}: {first}{hint} "
                            f"(run with -v for details; --resume continues from the last "
                            f"checkpoint)") from None
    return 0


def run_export(args: argparse.Namespace) -> int:
    from cinecap.training.config import GRPOConfig, from_args
    from cinecap.training.swift_export import export_swift

    cfg = from_args(GRPOConfig, args, args.config)
    sft_cfg = None
    if args.sft_config:
        from cinecap.training.config import read_config_file
        from cinecap.training.swift_export import sft_settings

        sft_cfg = sft_settings(cfg, args.cot, args.anchors, read_config_file(args.sft_config))
    info = export_swift(cfg, cot=args.cot, anchors=args.anchors, sft_cfg=sft_cfg)
    _print_event({"event": "done", "stage": "export-swift", "path": cfg.out,
                  **{k: info[k] for k in ("sft_rows", "sft_val_rows", "grpo_rows", "files")},
                  "data_hash": info["data"]["data_hash"]})
    return 0
