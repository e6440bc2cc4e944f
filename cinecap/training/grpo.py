"""GRPO on video: our own small loop on accelerate (TRL's GRPOTrainer feeds no video to its
gradient pass), read top to bottom in :meth:`GRPORun.train_step`.

One optimizer step, for each of ``prompts_per_step`` clips on each process:

1. sample G completions of the released prompt with the clip's video (temperature 1.0, top-p 0.99,
   top-k 50; vision tokens suppressed). While the vision tower is frozen the clip is encoded once
   and that output serves the G samples and every forward pass of the group (the same features a
   frozen tower would give each time; the reference shares the tower); otherwise each pass
   encodes its video tensors;
2. reward each one (:class:`~cinecap.training.rewards.JudgeReward`: the judge, then
   ``cinecap.reward``; a failed judgement drops that completion from its group, and is counted);
3. advantages normalised within the group: A = (r − mean) / (std + 1e-4);
4. the loss over the completion tokens, the video repeated for every completion:
   −min(ρ·A, clip(ρ, 1−ε, 1+ε)·A) + β·KL, with ρ the ratio to the sampling policy and KL the k3
   estimate against the frozen reference (with LoRA: the base with the adapter disabled); averaged
   over each completion's tokens, then over completions.

Data order is a function of (seed, step): the prompts of step s are fixed before training starts,
so a resumed run sees exactly the prompts the uninterrupted one would have seen. Under
``accelerate launch`` (DDP) each process takes its own prompts and the gradients are averaged.
"""
from __future__ import annotations

import logging
import math
import random
import time
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cinecap.errors import InputError, TrainingError
from cinecap.progress import Progress
from cinecap.training import modeling
from cinecap.training.config import RESUMABLE_CHANGES, GRPOConfig
from cinecap.training.data import GRPOPrompt, grpo_prompts, load_dataset
from cinecap.training.rewards import JudgeReward, Scored
from cinecap.training.version import EventSink, VersionDir, eta, read_json, write_json

log = logging.getLogger(__name__)

COMPLETIONS = "completions.jsonl"
STD_EPS = 1e-4


def prompt_order(n_prompts: int, step: int, per_step: int, world: int, rank: int,
                 seed: int) -> list[int]:
    """Indices (into the training prompts) that process ``rank`` takes at optimizer ``step``.

    Epoch e visits the prompts in a permutation drawn from (seed, e); positions run on across
    epochs, so the order depends on nothing but the arguments.
    """
    out = []
    for j in range(per_step):
        q = (step * world + rank) * per_step + j
        epoch, k = divmod(q, n_prompts)
        perm = list(range(n_prompts))
        random.Random(seed * 1_000_003 + epoch).shuffle(perm)
        out.append(perm[k])
    return out


def total_steps(cfg: GRPOConfig, n_prompts: int, world: int) -> int:
    if cfg.max_steps > 0:
        return cfg.max_steps
    return max(1, math.ceil(cfg.epochs * n_prompts / (cfg.prompts_per_step * world)))


def selective_log_softmax(logits: Any, index: Any) -> Any:
    """log p(index) row by row, in float32, without a [B, T, V] float32 copy of the logits."""
    import torch

    rows = []
    for row_logits, row_index in zip(logits, index):
        row = row_logits.float()
        rows.append(row.gather(-1, row_index.unsqueeze(-1)).squeeze(-1) - torch.logsumexp(row, dim=-1))
    return torch.stack(rows)


def completion_logps(model: Any, batch: dict[str, Any], n_completion: int,
                     temperature: float) -> Any:
    """Per-token log-probabilities of the last ``n_completion`` tokens of ``batch`` [B, C]."""
    out = model(**batch, use_cache=False, logits_to_keep=n_completion + 1)
    logits = out.logits[:, :-1, :] / temperature
    return selective_log_softmax(logits, batch["input_ids"][:, -n_completion:])


@dataclass
class Group:
    """One prompt's completions and what they earned."""

    prompt: GRPOPrompt
    inputs: dict[str, Any]  # the prompt's tensors (batch of one, CPU)
    completion_ids: Any  # [G, C]
    mask: Any  # [G, C] 1 up to and including the end token
    texts: list[str]
    scored: list[Scored]
    advantages: Any  # [G]; 0 for dropped samples
    kept: Any  # [G] bool: judged (a failed judgement drops the sample)
    video: Any = None  # the clip's vision-tower output while the tower is frozen, else None
    old_logps: Any = None
    ref_logps: Any = None


class GRPORun:
    """One GRPO round: a policy (base or SFT version) + gold pairs → a model version directory."""

    stage = "grpo"

    def __init__(self, cfg: GRPOConfig, events: EventSink | None = None,
                 progress: Progress | None = None, resume: bool = False, judge: Any = None,
                 base: modeling.Base | None = None):
        """``judge``: a judge object instead of ``cfg.judge``; ``base``: a model already in memory
        (benchmarks) instead of loading ``cfg.base``."""
        self._base = base
        self.cfg = cfg.resolved()
        self.resume = resume
        self.progress = progress
        self.version = VersionDir(cfg.out, events)
        self._judge = judge
        self.step = 0  # optimizer steps done
        self.history: list[dict[str, Any]] = []

    def emit(self, event: dict[str, Any]) -> None:
        self.version.emit(event)

    # ------------------------------------------------------------------------------ preparing
    def prepare(self) -> "GRPORun":
        cfg = self.cfg
        self.version.check(self.resume)
        # The judge first: a bad judge setting fails before anything heavy loads.
        self.rewarder = JudgeReward(cfg, self._judge, count_tokens=self._count_tokens)
        if self.progress:  # who scores the samples, said before anything loads
            self.progress(0.0, self.rewarder.resolved.summary())
        import torch
        from accelerate import Accelerator
        from accelerate.utils import set_seed

        self.accelerator = acc = Accelerator(cpu=cfg.device == "cpu")
        kind = str(acc.distributed_type).rsplit(".", 1)[-1]
        if kind in ("DEEPSPEED", "FSDP", "MEGATRON_LM"):
            # Each forward/backward chunk would be a DeepSpeed/FSDP optimizer step of its own.
            raise InputError(f"the GRPO loop runs on one device or under DDP, not {kind}: launch "
                             f"with configs/accelerate/ddp.yaml, or export for ms-swift "
                             f"(cinecap train export-swift) to train GRPO with ZeRO-3")
        self.version.main, self.version.sync = acc.is_main_process, acc.wait_for_everyone
        acc.wait_for_everyone()  # every process has checked --out before anything writes there
        set_seed(cfg.seed)
        self.dataset = load_dataset(cfg.data, cfg.eval_fraction, cfg.seed)
        self.prompts = grpo_prompts(self.dataset.train_pairs)
        self.max_steps = total_steps(cfg, len(self.prompts), acc.num_processes)

        dtype = modeling.resolve_dtype(cfg, str(acc.device))
        self.base = self._base or modeling.load_base(cfg, dtype)
        tok = self.base.processor.tokenizer

        model = modeling.make_trainable(self.base.model, cfg)
        if cfg.gradient_checkpointing:
            if hasattr(model, "activation_checkpointing_enable"):  # transformers >= 5.2x
                model.activation_checkpointing_enable(
                    activation_checkpointing_kwargs={"use_reentrant": False})
            else:
                model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        self.ref_model = None
        if cfg.beta > 0 and not modeling.is_lora(model):
            import copy

            self.ref_model = copy.deepcopy(self.base.model).eval().requires_grad_(False)
        self.builder = modeling.InputBuilder(self.base.processor, self.base.family, cfg)
        from cinecap.captioners.vlm import VISION_TOKENS

        self.suppress = [i for i in (tok.convert_tokens_to_ids(t) for t in VISION_TOKENS)
                         if isinstance(i, int) and i >= 0 and i != getattr(tok, "unk_token_id", None)]
        gen_eos = model.generation_config.eos_token_id
        gen_eos = gen_eos if isinstance(gen_eos, list) else [gen_eos]
        self.eos_ids = sorted({i for i in gen_eos + [self.builder.end_id] if i is not None})

        params = [p for p in model.parameters() if p.requires_grad]
        if not params:
            raise TrainingError("nothing to train: every parameter is frozen")
        optimizer = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
        from transformers import get_cosine_schedule_with_warmup

        self.scheduler = get_cosine_schedule_with_warmup(
            optimizer, int(cfg.warmup_ratio * self.max_steps), self.max_steps)
        self.model, self.optimizer = acc.prepare(model, optimizer)
        if self.ref_model is not None:
            self.ref_model.to(acc.device)
        self.counts = modeling.parameter_counts(model)
        self.share_video = cfg.freeze_vision and modeling.takes_video_features(self.unwrapped)
        # Written once the model is ready: a base that fails to load leaves no trace in --out.
        self.version.begin(self.stage, cfg.to_dict(), self.dataset.info(), self.resume,
                           extra={"reward": self.rewarder.describe()},
                           resumable_changes=RESUMABLE_CHANGES)
        return self

    def _count_tokens(self, text: str) -> int:
        """Answer length in the policy's tokens (the length-penalty reward)."""
        return len(self.base.processor.tokenizer(text, add_special_tokens=False)["input_ids"])

    @property
    def unwrapped(self) -> Any:
        return self.accelerator.unwrap_model(self.model)

    # -------------------------------------------------------------------------------- one step
    def _prompt_inputs(self, prompt: GRPOPrompt) -> dict[str, Any]:
        return self.builder.prompt(prompt.video_path)  # kept per clip by the builder

    def _to_device(self, d: dict[str, Any]) -> dict[str, Any]:
        return {k: v.to(self.accelerator.device) if hasattr(v, "to") else v for k, v in d.items()}

    def _encode(self, inputs: dict[str, Any]) -> Any:
        """The clip's vision output for its whole group, or None where each pass encodes it."""
        if not (self.share_video and "pixel_values_videos" in inputs):
            return None
        return modeling.encode_video(self.unwrapped, self._to_device(inputs))

    def _generate(self, inputs: dict[str, Any], video: Any = None) -> Any:
        import torch

        cfg = self.cfg
        batch = self._to_device(modeling.repeat_inputs(inputs, cfg.num_generations, video))
        # The unwrapped model generates: the loop runs on one device or under DDP, with no
        # sharded parameters to gather, so TRL's unwrap helper added only the trl import (~1.7 s
        # of CPU per GRPO process). In eval mode: no dropout, and activation checkpointing
        # applies in training mode only, so it can stay on.
        m = self.unwrapped
        was_training = m.training
        m.eval()
        try:
            with torch.no_grad():
                out = m.generate(**batch, do_sample=True, temperature=cfg.temperature,
                                 top_p=cfg.top_p, top_k=cfg.top_k, max_new_tokens=cfg.max_new_tokens,
                                 suppress_tokens=self.suppress or None, eos_token_id=self.eos_ids,
                                 pad_token_id=self.builder.pad_id)
        finally:
            m.train(was_training)
        return out[:, inputs["input_ids"].shape[1]:].cpu()

    def _completion_mask(self, ids: Any) -> Any:
        import torch

        is_end = torch.isin(ids, torch.tensor(self.eos_ids))
        none = torch.full((ids.shape[0],), ids.shape[1])
        first = torch.where(is_end.any(1), is_end.float().argmax(1), none)
        return (torch.arange(ids.shape[1]).unsqueeze(0) <= first.unsqueeze(1)).long()

    def _make_group(self, prompt: GRPOPrompt) -> Group:
        import torch

        inputs = self._prompt_inputs(prompt)
        video = self._encode(inputs)
        ids = self._generate(inputs, video)
        mask = self._completion_mask(ids)
        tok = self.base.processor.tokenizer
        texts = [tok.decode([t for t, m in zip(row.tolist(), mrow.tolist()) if m and t not in self.eos_ids],
                            skip_special_tokens=True) for row, mrow in zip(ids, mask)]
        scored = self.rewarder.score(prompt.gt_caption, texts)
        kept = torch.tensor([not s.failed for s in scored])
        rewards = torch.tensor([s.total if not s.failed else float("nan") for s in scored])
        adv = torch.zeros(len(scored))
        if int(kept.sum()) >= 2:
            r = rewards[kept]
            adv[kept] = (r - r.mean()) / (r.std() + STD_EPS)
        return Group(prompt, inputs, ids, mask, texts, scored, adv, kept, video)

    def _chunks(self, group: Group) -> list[list[int]]:
        rows = [i for i in range(len(group.scored)) if bool(group.kept[i])]
        size = self.cfg.forward_batch_size
        return [rows[i:i + size] for i in range(0, len(rows), size)]

    def _batch(self, group: Group, rows: list[int]) -> dict[str, Any]:
        inputs = modeling.repeat_inputs(group.inputs, len(rows), group.video)
        return self._to_device(modeling.append_completion(inputs, group.completion_ids[rows]))

    def _fixed_logps(self, groups: list[Group]) -> None:
        """Log-probabilities that do not move during the step: the reference's, and the sampling
        policy's when it is updated more than once on the same completions."""
        import torch

        cfg = self.cfg
        for g in groups:
            n = g.completion_ids.shape[1]
            ref, old = torch.zeros(g.completion_ids.shape), torch.zeros(g.completion_ids.shape)
            for rows in self._chunks(g):
                batch = self._batch(g, rows)
                with torch.no_grad():
                    if cfg.beta > 0:
                        if self.ref_model is not None:
                            ref[rows] = completion_logps(self.ref_model, batch, n, cfg.temperature).cpu()
                        else:
                            with self.unwrapped.disable_adapter():
                                ref[rows] = completion_logps(self.unwrapped, batch, n, cfg.temperature).cpu()
                    if cfg.num_iterations > 1:
                        old[rows] = completion_logps(self.unwrapped, batch, n, cfg.temperature).cpu()
            g.ref_logps = ref if cfg.beta > 0 else None
            g.old_logps = old if cfg.num_iterations > 1 else None

    def _loss_pass(self, groups: list[Group]) -> dict[str, float]:
        """Forward and backward over every kept completion of the step; returns loss and KL."""
        import torch

        cfg, acc = self.cfg, self.accelerator
        n_seqs = sum(int(g.kept.sum()) for g in groups)
        chunks = [(g, rows) for g in groups for rows in self._chunks(g)]
        if not chunks:  # every judgement failed: a zero-weight pass keeps processes in step
            g = groups[0]
            chunks, n_seqs = [(g, [0])], 0
        loss_sum = kl_sum = tokens = 0.0
        for k, (g, rows) in enumerate(chunks):
            n = g.completion_ids.shape[1]
            batch = self._batch(g, rows)
            mask = g.mask[rows].to(acc.device).float()
            adv = g.advantages[rows].to(acc.device).unsqueeze(1)
            sync = k == len(chunks) - 1
            with acc.no_sync(self.model) if not sync else nullcontext():
                logps = completion_logps(self.model, batch, n, cfg.temperature)
                old = logps.detach() if g.old_logps is None else g.old_logps[rows].to(acc.device)
                ratio = torch.exp(logps - old)
                clipped = torch.clamp(ratio, 1 - cfg.epsilon, 1 + cfg.epsilon)
                per_token = -torch.min(ratio * adv, clipped * adv)
                if g.ref_logps is not None:
                    delta = g.ref_logps[rows].to(acc.device) - logps
                    kl = torch.exp(delta) - delta - 1
                    per_token = per_token + cfg.beta * kl
                    kl_sum += float((kl.detach() * mask).sum())
                seq = (per_token * mask).sum(1) / mask.sum(1).clamp(min=1)
                loss = seq.sum() / max(1, n_seqs) if n_seqs else seq.sum() * 0.0
                acc.backward(loss)
            loss_sum += float(loss.detach())
            tokens += float(mask.sum())
        return {"loss": loss_sum, "kl": kl_sum / tokens if tokens and cfg.beta > 0 else 0.0}

    def train_step(self) -> dict[str, Any]:
        """One optimizer step (see the module docstring)."""

        cfg, acc = self.cfg, self.accelerator
        t0 = time.perf_counter()
        idx = prompt_order(len(self.prompts), self.step, cfg.prompts_per_step, acc.num_processes,
                           acc.process_index, cfg.seed)
        groups = [self._make_group(self.prompts[i]) for i in idx]
        self._fixed_logps(groups)
        losses = []
        for _ in range(cfg.num_iterations):
            losses.append(self._loss_pass(groups))
            grad_norm = acc.clip_grad_norm_(self.model.parameters(), cfg.max_grad_norm)
            self.optimizer.step()
            self.optimizer.zero_grad(set_to_none=True)
        lr = self.scheduler.get_last_lr()[0]
        self.scheduler.step()
        self.step += 1
        metrics = self._metrics(groups, losses[-1], float(grad_norm), lr, time.perf_counter() - t0)
        self._log_completions(groups)
        return metrics

    # ------------------------------------------------------------------------------ reporting
    def _metrics(self, groups: list[Group], loss: dict[str, float], grad_norm: float, lr: float,
                 seconds: float) -> dict[str, Any]:
        import torch

        acc = self.accelerator
        kept = [s for g in groups for s in g.scored if not s.failed]
        lengths = [float(m.sum()) for g in groups for m in g.mask]
        ends = torch.tensor(self.eos_ids)
        clipped = [float(not bool(torch.isin(ids, ends).any())) for g in groups for ids in g.completion_ids]
        local = torch.tensor([
            len(kept), sum(s.total for s in kept), sum(s.total ** 2 for s in kept),
            sum(s.breakdown.s_cmp for s in kept), sum(s.breakdown.s_acc for s in kept),
            sum(s.breakdown.r_cov for s in kept), sum(float(s.breakdown.gate_open) for s in kept),
            sum(s.length_penalty or 0.0 for s in kept),
            sum(len(g.scored) - int(g.kept.sum()) for g in groups),
            len(lengths), sum(lengths), sum(clipped), loss["loss"], loss["kl"],
        ], dtype=torch.float64, device=acc.device)
        total = acc.reduce(local, reduction="sum").cpu().tolist()
        (n, r_sum, r_sq, cmp_sum, acc_sum, cov_sum, gate_sum, len_pen, failed, n_all, len_sum,
         clip_sum, loss_sum, kl_sum) = total
        world = acc.num_processes
        mean = r_sum / n if n else None
        m: dict[str, Any] = {
            "step": self.step, "max_steps": self.max_steps,
            "reward": mean,
            "reward/std": math.sqrt(max(0.0, r_sq / n - mean ** 2)) if n else None,
            "reward/s_cmp": cmp_sum / n if n else None,
            "reward/s_acc": acc_sum / n if n else None,
            "reward/coverage": cov_sum / n if n else None,
            "reward/gate_open": gate_sum / n if n else None,
            "kl": kl_sum / world, "loss": loss_sum / world,
            "completion_length": len_sum / n_all if n_all else 0.0,
            "completions/clipped": clip_sum / n_all if n_all else 0.0,
            "judge/failed": int(failed), "judge/scored": int(n),
            "learning_rate": lr, "grad_norm": grad_norm, "step_seconds": round(seconds, 3),
            "prompts": self._all([g.prompt.index for g in groups]),
        }
        if self.cfg.reward == "length":
            m["reward/length_penalty"] = len_pen / n if n else None
        return m

    def _all(self, items: list[Any]) -> list[Any]:
        """``items`` of every process, in rank order (a collective call)."""
        if self.accelerator.num_processes == 1:
            return items
        from accelerate.utils import gather_object

        return gather_object(items)

    def _log_completions(self, groups: list[Group]) -> None:
        rows = self._all([{"step": self.step, "pair": g.prompt.index, "pair_id": g.prompt.pair_id,
                           "completion": text, **s.to_dict()}
                          for g in groups for text, s in zip(g.texts, g.scored)])
        if self.version.main:
            import json

            with open(self.version.path / COMPLETIONS, "a", encoding="utf-8") as f:
                for r in rows:
                    f.write(json.dumps(r, ensure_ascii=False) + "\n")

    # ---------------------------------------------------------------------------- checkpoints
    def _checkpoint_dirs(self) -> list[Path]:
        root = self.version.checkpoints
        if not root.is_dir():
            return []
        return sorted((p for p in root.iterdir() if p.is_dir() and p.name.startswith("step-")
                       and (p / "state.json").is_file()), key=lambda p: int(p.name.split("-")[1]))

    def save_checkpoint(self) -> Path:
        """Trainable weights, optimizer, scheduler, RNG of every process and the step: enough to
        continue exactly. Written under a temporary name and renamed, so a kill leaves no half
        checkpoint behind."""
        import torch
        from safetensors.torch import save_file

        acc = self.accelerator
        final = self.version.checkpoints / f"step-{self.step:06d}"
        tmp = final.with_name(final.name + ".tmp")
        if acc.is_main_process:
            tmp.mkdir(parents=True, exist_ok=True)
        acc.wait_for_everyone()
        torch.save(_rng_state(), tmp / f"rng-{acc.process_index}.pt")
        if acc.is_main_process:
            trainable = {n: p.detach().cpu().contiguous() for n, p in self.unwrapped.named_parameters()
                         if p.requires_grad}
            save_file(trainable, str(tmp / "trainable.safetensors"))
            torch.save(self.optimizer.state_dict(), tmp / "optimizer.pt")
            torch.save(self.scheduler.state_dict(), tmp / "scheduler.pt")
            write_json(tmp / "state.json", {"step": self.step, "history": self.history,
                                            "world_size": acc.num_processes})
        acc.wait_for_everyone()
        if acc.is_main_process:
            tmp.rename(final)
            for old in self._checkpoint_dirs()[:-self.cfg.save_total_limit]:
                import shutil

                shutil.rmtree(old, ignore_errors=True)
        acc.wait_for_everyone()
        self.emit({"event": "checkpoint", "stage": "grpo", "step": self.step})
        return final

    def load_checkpoint(self) -> Path | None:
        import torch
        from safetensors.torch import load_file

        dirs = self._checkpoint_dirs()
        if not dirs:
            return None
        last, acc = dirs[-1], self.accelerator
        state = read_json(last / "state.json")
        if state.get("world_size", 1) != acc.num_processes:
            raise TrainingError(f"the checkpoint was written by {state.get('world_size')} processes; "
                                f"resume with the same number ({acc.num_processes} now)")
        weights = load_file(str(last / "trainable.safetensors"))
        params = dict(self.unwrapped.named_parameters())
        missing = [n for n, p in params.items() if p.requires_grad and n not in weights]
        if missing:
            raise TrainingError(f"checkpoint {last.name} lacks {len(missing)} trainable tensors "
                                f"(e.g. {missing[0]}); it was written by another configuration")
        with torch.no_grad():
            for n, t in weights.items():
                params[n].copy_(t.to(params[n].device, params[n].dtype))
        self.optimizer.load_state_dict(torch.load(last / "optimizer.pt", weights_only=False))
        self.scheduler.load_state_dict(torch.load(last / "scheduler.pt", weights_only=False))
        _set_rng_state(torch.load(last / f"rng-{acc.process_index}.pt", weights_only=False))
        self.step = int(state["step"])
        self.history = list(state.get("history", []))
        return last

    # -------------------------------------------------------------------------------- running
    def run(self) -> Path:
        """Train to ``max_steps`` (from the last checkpoint with ``resume``), save the version."""
        if not hasattr(self, "accelerator"):
            self.prepare()
        cfg, acc = self.cfg, self.accelerator
        resumed = self.load_checkpoint() if self.resume else None
        self.emit({"event": "start", "stage": "grpo", "step": self.step, "max_steps": self.max_steps,
                   "resume_from": str(resumed) if resumed else None,
                   "train_prompts": len(self.prompts),
                   "heldout_pairs": len(self.dataset.split.heldout),
                   "data_hash": self.dataset.data_hash, "processes": acc.num_processes,
                   **self.counts})
        self.model.train()
        t0, first = time.perf_counter(), self.step
        try:
            while self.step < self.max_steps:
                m = self.train_step()
                self.history.append({k: v for k, v in m.items() if k != "prompts"})
                if self.step % cfg.logging_steps == 0 or self.step == self.max_steps:
                    self.emit({"event": "step", "stage": "grpo", **m,
                               "eta_s": eta(t0, self.step - first, self.max_steps - self.step)})
                if self.progress:
                    self.progress(self.step / self.max_steps, f"GRPO step {self.step}/{self.max_steps}")
                if self.step % cfg.save_steps == 0 and self.step < self.max_steps:
                    self.save_checkpoint()
        finally:
            self.rewarder.close()
        return self._finish()

    def _finish(self) -> Path:
        acc, out = self.accelerator, self.version.path
        acc.wait_for_everyone()
        weights = None
        if acc.is_main_process:
            self.unwrapped.config.use_cache = True  # off while training; on for the saved model
            weights = modeling.save_weights(self.unwrapped, self.base.processor, out, self.base)
        acc.wait_for_everyone()
        rewards = [h["reward"] for h in self.history if h.get("reward") is not None]
        k = max(1, len(rewards) // 4)
        metrics = {"stage": "grpo", "steps": self.step, "weights": weights,
                   "reward_first_quarter": sum(rewards[:k]) / k if rewards else None,
                   "reward_last_quarter": sum(rewards[-k:]) / k if rewards else None,
                   "judge_failed": sum(h.get("judge/failed", 0) for h in self.history),
                   "history": self.history, "reward": self.rewarder.describe(), **self.counts}
        self.version.complete(metrics, self.cfg.keep_checkpoints)
        self.emit({"event": "done", "stage": "grpo", "path": str(out), "steps": self.step,
                   "reward_first_quarter": metrics["reward_first_quarter"],
                   "reward_last_quarter": metrics["reward_last_quarter"]})
        return out


def _rng_state() -> dict[str, Any]:
    import numpy as np
    import torch

    state = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def _set_rng_state(state: dict[str, Any]) -> None:
    import numpy as np
    import torch

    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def run_grpo(cfg: GRPOConfig, events: EventSink | None = None, progress: Progress | None = None,
             resume: bool = False) -> Path:
    """Train one GRPO round and return its model version directory."""
    return GRPORun(cfg, events, progress, resume).prepare().run()
