(() => {
if (window.__cinecapDrag) return; window.__cinecapDrag = true;
let drag = null;
document.addEventListener('pointerdown', (e) => {
  const lane = e.target.closest
    ? e.target.closest('.cc-timeline[data-drag] button.cc-tl-lane[data-id]') : null;
  if (!lane || e.button !== 0) return;
  const bar = lane.querySelector('.cc-tl-bar'), br = bar.getBoundingClientRect();
  const x = e.clientX, edge = 8;
  const mode = Math.abs(x - br.left) <= edge ? 'start' : Math.abs(x - br.right) <= edge ? 'end'
    : (x > br.left && x < br.right ? 'move' : null);
  if (!mode) return;
  const tl = lane.closest('.cc-timeline');
  drag = {lane, bar, tl, mode, x0: x, width: lane.getBoundingClientRect().width,
          span: Number(tl.dataset.span), t0: Number(lane.dataset.t0), t1: Number(lane.dataset.t1),
          a: Number(lane.dataset.t0), b: Number(lane.dataset.t1), moved: false};
  e.preventDefault();
});
document.addEventListener('pointermove', (e) => {
  if (!drag) return;
  const d = drag, dt = (e.clientX - d.x0) / d.width * d.span, least = Math.min(0.1, d.span / 100);
  if (Math.abs(e.clientX - d.x0) > 3) { d.moved = true; d.lane.classList.add('cc-dragging'); }
  let a = d.t0, b = d.t1;
  if (d.mode === 'move') {
    const len = b - a; a = Math.min(Math.max(0, a + dt), d.span - len); b = a + len; }
  else if (d.mode === 'start') a = Math.min(Math.max(0, a + dt), b - least);
  else b = Math.max(Math.min(d.span, b + dt), a + least);
  d.a = a; d.b = b;
  d.bar.style.left = (100 * a / d.span) + '%'; d.bar.style.width = (100 * (b - a) / d.span) + '%';
  const at = d.lane.querySelector('.cc-tl-label small');
  if (at) at.textContent = a.toFixed(2) + '–' + b.toFixed(2) + ' s';
});
document.addEventListener('pointerup', () => {
  if (!drag) return;
  const d = drag; drag = null;
  if (!d.moved) return;
  d.lane.dataset.dragged = '1';
  const box = document.querySelector('#' + d.tl.dataset.drag + ' textarea');
  const go = document.getElementById(d.tl.dataset.drag + '-button');
  if (!box || !go) return;
  box.value = d.lane.dataset.id + ' ' + d.a.toFixed(2) + ' ' + d.b.toFixed(2);
  box.dispatchEvent(new Event('input', {bubbles: true}));
  go.click();
});
document.addEventListener('click', (e) => {
  const lane = e.target.closest ? e.target.closest('button.cc-tl-lane[data-dragged]') : null;
  if (!lane) return;
  delete lane.dataset.dragged; e.preventDefault(); e.stopImmediatePropagation();
}, true);
})();
