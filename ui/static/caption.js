(() => {
if (window.__cinecapExamples) return; window.__cinecapExamples = true;
// A click on an example card runs that example: its key goes into the hidden box, then the
// hidden button is pressed (one Gradio event, one API endpoint: /caption_example).
document.addEventListener('click', (e) => {
  const card = e.target && e.target.closest ? e.target.closest('[data-example]') : null;
  if (!card) return;
  const box = document.querySelector('#example-key textarea');
  const run = document.getElementById('example-run');
  if (!box || !run) return;
  e.preventDefault(); box.value = card.dataset.example;
  box.dispatchEvent(new Event('input', {bubbles: true})); run.click();
});
// The file picker is told which files to offer (Gradio's own type check would refuse a wrong
// file before our handler, with an "Error" badge on every output and no line in the status).
const offered = (window.cinecapConfig || {}).videoAccept || 'video/*';
const accept = () => document.querySelectorAll('#upload input[type=file]').forEach((i) => {
  if (!i.accept) i.accept = offered; });
new MutationObserver(accept).observe(document.documentElement, {childList: true, subtree: true});
// "Review this clip": the Review tab, then that clip opened once the tab has shown (its own
// page-load values come first).
document.addEventListener('click', (e) => {
  const b = e.target && e.target.closest ? e.target.closest('[data-review-clip]') : null;
  if (!b) return;
  e.preventDefault();
  const tab = [...document.querySelectorAll('button[role=tab]')].find(
    (t) => t.innerText.trim() === 'Review');
  if (!tab) return;
  tab.click();
  let tries = 0;
  const go = () => {
    const box = document.querySelector('#review-clip-id input');
    const open = document.getElementById('review-open');
    if ((!box || !open || open.offsetParent === null) && tries++ < 50) {
      setTimeout(go, 200); return; }
    if (!box || !open) return;
    setTimeout(() => { box.value = b.dataset.reviewClip;
      box.dispatchEvent(new Event('input', {bubbles: true})); open.click(); }, 1000);
  };
  go();
});
})();
