(() => {
if (window.__cinecapPlayer) return; window.__cinecapPlayer = true;
const videoOf = (sel) => { const box = sel && document.querySelector(sel);
  return box ? (box.tagName === 'VIDEO' ? box : box.querySelector('video')) : null; };
const parse = (spec) => String(spec).trim().split(/\s+/).map(Number);
// Pause at the interval's end, checked every frame (timeupdate alone fires every ~250 ms and
// would overshoot a short interval), a frame before the end so the next shot never shows.
const stopAt = (v) => { if (v.__cinecapStop !== null && v.__cinecapStop !== undefined
    && v.currentTime >= v.__cinecapStop - 0.04) { v.pause(); v.__cinecapStop = null; } };
const watch = (v) => { if (v.__cinecapWatch) return; v.__cinecapWatch = true;
  const tick = () => { stopAt(v);
    if (v.__cinecapStop === null || v.__cinecapStop === undefined || v.paused && v.readyState >= 2
        && !v.seeking) { v.__cinecapWatch = false; return; }
    requestAnimationFrame(tick); };
  requestAnimationFrame(tick); };
window.cinecapSeek = (spec, player) => {
  const v = videoOf(player || '#review-video');
  if (!v || spec === null || spec === undefined || spec === '') return;
  const [t0, t1] = parse(spec);
  if (!isFinite(t0)) return;
  const go = () => {
    v.__cinecapStop = isFinite(t1) && t1 > t0 ? t1 : null;
    v.currentTime = t0;
    const p = v.play(); if (p && p.catch) p.catch(() => {});
    if (v.__cinecapStop !== null) watch(v);
  };
  if (v.readyState >= 1) go(); else v.addEventListener('loadedmetadata', go, {once: true});
};
const boxesOf = (v) => [...document.querySelectorAll('[data-player]')].filter((box) => {
  const p = document.querySelector(box.dataset.player); return p && p.contains(v); });
const sync = (v) => {
  if (!(v instanceof HTMLVideoElement)) return;
  const t = v.currentTime;
  for (const box of boxesOf(v)) {
    box.querySelectorAll('[data-t0]').forEach((el) => {
      const a = Number(el.dataset.t0), b = Number(el.dataset.t1);
      el.classList.toggle('cc-now', t >= a - 1e-3 && t < b);
    });
    box.querySelectorAll('[data-moment]').forEach((panel) => {
      const shots = [...panel.querySelectorAll('[data-shot]')];
      let shown = shots.find((s) => t >= Number(s.dataset.t0) - 1e-3
                                    && t < Number(s.dataset.t1) - 1e-3);
      if (!shown && shots.length) {
        shown = t <= Number(shots[0].dataset.t0) ? shots[0] : shots[shots.length - 1]; }
      shots.forEach((s) => { s.hidden = s !== shown; });
      const at = panel.querySelector('.cc-moment-time');
      if (at) at.textContent = t.toFixed(2) + ' s';
    });
    const span = Number(box.dataset.span);
    if (span > 0) box.querySelectorAll('.cc-playhead').forEach((h) => {
      h.style.left = Math.min(100, Math.max(0, 100 * t / span)) + '%'; h.hidden = false; });
  }
};
window.cinecapSync = sync;
document.addEventListener('timeupdate', (e) => {
  const v = e.target; if (!(v instanceof HTMLVideoElement)) return;
  stopAt(v);
  sync(v);
}, true);
for (const kind of ['seeked', 'loadedmetadata', 'pause']) {
  document.addEventListener(kind, (e) => sync(e.target), true); }
const seekFrom = (el) => { const box = el.closest('[data-player]');
  if (box) window.cinecapSeek(el.dataset.seek, box.dataset.player); };
document.addEventListener('click', (e) => {
  const el = e.target && e.target.closest ? e.target.closest('[data-seek]') : null;
  if (!el || (e.target.closest('a') && e.target.closest('a') !== el)) return;
  e.preventDefault(); seekFrom(el);
});
document.addEventListener('keydown', (e) => {
  const el = e.target;
  if ((e.key === 'Enter' || e.key === ' ') && el && el.matches && el.matches('[data-seek]')) {
    e.preventDefault(); seekFrom(el); }
});
})();
