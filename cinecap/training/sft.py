"""Supervised fine-tuning on gold pairs through TRL's ``SFTTrainer`` with a video collator.

TRL prepares image datasets itself but not video ones, so the dataset holds only (clip, target)
references and the collator builds each batch: the released prompt with the clip's frames (the
``vlm`` captioner's own input path), the target tokens after it, labels masked (-100) over the
prompt, the video placeholders and the padding. ``remove_unused_columns=False`` and
``skip_prepare_dataset`` keep TRL from touching the rows.

    run = SFTRun(SFTConfig(base=…, data=…, out=…), events=print)
    run.prepare()          # data checked and split, model loaded and made trainable
    path = run.run()       # trains, saves the model version, writes COMPLETE last
"""
from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from cinecap.errors import TrainingError
from cinecap.progress import Progress
from cinecap.training import modeling
from cinecap.training.config import RESUMABLE_CHANGES, SFTConfig
from cinecap.training.data import (Dataset, SFTSample, anchors_evidence, load_dataset,
                                   samples_summary, sft_samples)
from cinecap.training.version import EventSink, VersionDir, eta

log = logging.getLogger(__name__)


class VideoCollator:
    """Features ``{"sample", "video_path", "target"}`` → model inputs with masked labels."""

    def __init__(self, builder: modeling.InputBuilder):
        self.builder = builder

    def __call__(self, features: list[dict[str, Any]]) -> dict[str, Any]:
        import torch

        items = [self.builder.supervised(f["video_path"], f["target"]) for f in features]
        batch = modeling.collate(items, self.builder.pad_id)
        batch["sample_index"] = torch.tensor([int(f["sample"]) for f in features])
        return batch


def _trainer_class():
    from trl import SFTTrainer

    class VideoSFTTrainer(SFTTrainer):
        """SFTTrainer that records which samples each optimizer step trained on."""

        seen: list[int]

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            ids = inputs.pop("sample_index", None)
            if ids is not None and model.training:
                self.seen.extend(int(i) for i in ids.tolist())
            return super().compute_loss(model, inputs, return_outputs, num_items_in_batch)

    return VideoSFTTrainer


def _events_callback(run: "SFTRun"):
    from transformers import TrainerCallback

    class Events(TrainerCallback):
        def __init__(self) -> None:
            self.t0 = time.perf_counter()
            self.first_step: int | None = None

        def on_step_end(self, args, state, control, **kw):
            trainer = run.trainer
            run.step_samples.append(list(trainer.seen))
            trainer.seen.clear()

        def on_log(self, args, state, control, logs=None, **kw):
            logs = logs or {}
            if "loss" not in logs:
                return
            if self.first_step is None:
                self.first_step = state.global_step - args.logging_steps
            step = state.global_step
            samples = run.step_samples[-args.logging_steps:]
            run.history.append({"step": step, "loss": logs["loss"]})
            run.emit({"event": "step", "stage": "sft", "step": step, "max_steps": state.max_steps,
                      "epoch": round(state.epoch or 0.0, 4), "loss": logs["loss"],
                      "learning_rate": logs.get("learning_rate"), "grad_norm": logs.get("grad_norm"),
                      "samples": [i for s in samples for i in s],
                      "eta_s": eta(self.t0, step - self.first_step, state.max_steps - step)})
            if run.progress:
                run.progress(step / max(1, state.max_steps), f"SFT step {step}/{state.max_steps}")

        def on_save(self, args, state, control, **kw):
            run.emit({"event": "checkpoint", "stage": "sft", "step": state.global_step})

    return Events()


class SFTRun:
    """One SFT round: gold pairs → a model version directory."""

    stage = "sft"

    def __init__(self, cfg: SFTConfig, events: EventSink | None = None,
                 progress: Progress | None = None, resume: bool = False,
                 base: modeling.Base | None = None):
        """``base``: a model already in memory (benchmarks) instead of loading ``cfg.base``."""
        self._base = base
        self.cfg = cfg.resolved()
        self.resume = resume
        self.progress = progress
        self.version = VersionDir(cfg.out, events)
        self.history: list[dict[str, Any]] = []
        self.step_samples: list[list[int]] = []  # sample indices per optimizer step, this process
        self.dataset: Dataset | None = None
        self.samples: list[SFTSample] = []
        self.trainer: Any = None
        self.base: modeling.Base | None = None
        self.model: Any = None

    def emit(self, event: dict[str, Any]) -> None:
        self.version.emit(event)

    # ------------------------------------------------------------------------------ preparing
    def prepare(self) -> "SFTRun":
        cfg = self.cfg
        self.version.check(self.resume)
        self.dataset = load_dataset(cfg.data, cfg.eval_fraction, cfg.seed)
        anchors = anchors_evidence() if cfg.anchors == "auto" else None
        self.samples = sft_samples(self.dataset.pairs, cfg.cot, anchors, cfg.contradicted)
        info = self.dataset.info()
        info["sft"] = samples_summary(self.samples, cfg.cot, cfg.contradicted)
        if info["sft"]["contradicted"]:
            log.warning("%d gold statement(s) contradicted by the pixels (%s): %s",
                        info["sft"]["contradicted"], cfg.contradicted,
                        "; ".join(f"{c['pair']} {c['aspect']} {c['value']}"
                                  for c in info["sft"]["contradicted_statements"][:10]))
        self.args = self._training_arguments()  # sets up the processes under accelerate launch
        state = self.args.distributed_state
        self.version.main, self.version.sync = state.is_main_process, state.wait_for_everyone
        state.wait_for_everyone()  # every process has checked --out before anything writes there
        self._build_trainer()  # before anything is written: a base that fails to load leaves no trace
        self.version.begin(self.stage, cfg.to_dict(), info, self.resume,
                           resumable_changes=RESUMABLE_CHANGES)
        return self

    def _device(self) -> str:
        import torch

        if self.cfg.device == "cpu" or not torch.cuda.is_available():
            return "cpu"
        return "cuda"

    def _training_arguments(self) -> Any:
        from trl import SFTConfig as TRLSFTConfig

        cfg = self.cfg
        dtype = modeling.resolve_dtype(cfg, self._device())
        return TRLSFTConfig(
            output_dir=str(self.version.checkpoints),
            per_device_train_batch_size=cfg.per_device_batch_size,
            per_device_eval_batch_size=cfg.per_device_batch_size,
            gradient_accumulation_steps=cfg.gradient_accumulation_steps,
            learning_rate=cfg.lr, lr_scheduler_type="cosine", warmup_steps=cfg.warmup_ratio,
            weight_decay=cfg.weight_decay, max_grad_norm=cfg.max_grad_norm,
            num_train_epochs=cfg.epochs, max_steps=cfg.max_steps,
            logging_steps=cfg.logging_steps, save_strategy="steps", save_steps=cfg.save_steps,
            save_total_limit=cfg.save_total_limit, seed=cfg.seed, data_seed=cfg.seed,
            bf16=dtype == "bfloat16", fp16=dtype == "float16",
            activation_checkpointing=cfg.gradient_checkpointing,
            activation_checkpointing_kwargs={"use_reentrant": False},
            remove_unused_columns=False, dataset_kwargs={"skip_prepare_dataset": True},
            max_length=None, packing=False, report_to=[], disable_tqdm=True,
            use_cpu=self._device() == "cpu", dataloader_num_workers=0,
            dataloader_pin_memory=False)

    def _build_trainer(self) -> None:
        from datasets import Dataset as HFDataset

        cfg = self.cfg
        self.base = self._base or modeling.load_base(cfg, modeling.resolve_dtype(cfg, self._device()))
        self.model = modeling.make_trainable(self.base.model, cfg)
        builder = modeling.InputBuilder(self.base.processor, self.base.family, cfg)
        train_idx = set(self.dataset.split.train)
        rows = [{"sample": s.index, "video_path": s.video_path, "target": s.target}
                for s in self.samples if s.index in train_idx]
        held = [{"sample": s.index, "video_path": s.video_path, "target": s.target}
                for s in self.samples if s.index not in train_idx]
        self.train_rows, self.heldout_rows = rows, held
        trainer_cls = _trainer_class()
        self.trainer = trainer_cls(
            model=self.model, args=self.args, data_collator=VideoCollator(builder),
            train_dataset=HFDataset.from_list(rows),
            processing_class=self.base.processor, callbacks=[_events_callback(self)])
        self.trainer.seen = []
        from transformers.trainer_callback import PrinterCallback

        self.trainer.remove_callback(PrinterCallback)  # progress goes out as JSON events only

    # -------------------------------------------------------------------------------- running
    def run(self) -> Path:
        """Train (from the last checkpoint with ``resume``), then write the model version."""
        from transformers.trainer_utils import get_last_checkpoint

        if self.trainer is None:
            self.prepare()
        cfg, trainer = self.cfg, self.trainer
        last = None
        if self.resume and self.version.checkpoints.is_dir():
            last = get_last_checkpoint(str(self.version.checkpoints))
        counts = modeling.parameter_counts(self.model)
        self.emit({"event": "start", "stage": "sft", "resume_from": last,
                   "train_pairs": len(self.train_rows), "heldout_pairs": len(self.heldout_rows),
                   "data_hash": self.dataset.data_hash, **counts})
        t0 = time.perf_counter()
        try:
            result = trainer.train(resume_from_checkpoint=last)
        except (RuntimeError, ValueError) as e:
            if "out of memory" in str(e).lower():
                raise TrainingError("the GPU ran out of memory: lower max_tokens_per_frame, "
                                    "max_frames or per_device_batch_size, or use LoRA") from None
            raise
        metrics: dict[str, Any] = {"stage": "sft", "steps": trainer.state.global_step,
                                   "train_loss": result.training_loss,
                                   "train_seconds": round(time.perf_counter() - t0, 2),
                                   "losses": self.history, **counts}
        if self.heldout_rows:
            from datasets import Dataset as HFDataset

            ev = trainer.evaluate(eval_dataset=HFDataset.from_list(self.heldout_rows))
            metrics["heldout_loss"] = ev.get("eval_loss")
        out = self.version.path
        self.model.config.use_cache = True  # off while training; the saved model generates with it
        trainer.save_model(str(out))
        if trainer.accelerator.is_main_process:
            if modeling.is_lora(self.model):
                modeling.point_adapter_to_base(out, self.base.reference)
            metrics["weights"] = "lora" if modeling.is_lora(self.model) else "full"
        trainer.accelerator.wait_for_everyone()
        self.version.complete(metrics, cfg.keep_checkpoints)
        self.emit({"event": "done", "stage": "sft", "path": str(out),
                   "steps": metrics["steps"], "train_loss": metrics["train_loss"],
                   "heldout_loss": metrics.get("heldout_loss")})
        return out


def run_sft(cfg: SFTConfig, events: EventSink | None = None, progress: Progress | None = None,
            resume: bool = False) -> Path:
    """Train one SFT round and return its model version directory."""
    return SFTRun(cfg, events, progress, resume).prepare().run()
