(() => {
if (window.__cinecapFrames) return; window.__cinecapFrames = true;
// Gradio 6.31's status trackers count an event's elapsed time by asking for the next animation
// frame from each frame, and stop only when their event ends: a tracker removed from the page
// while its event runs (the page-loading indicator, always; an output hidden by its own event)
// keeps asking, ~60 frames a second for as long as the page is open, 3-4 % of a core of the
// visitor's machine each. Status trackers keep the requestAnimationFrame they found when their
// module loaded, so this runs before Gradio's scripts (ui/serving.py, EarlyScript):
// - a timer tick asked for before the app has a session (the page still loading, whose indicator
//   shows no time) is not scheduled: that timer ends;
// - any other timer tick waits a tenth of a second first: a time shown in tenths reads the same,
//   and a timer nobody can see any more costs a sixth of what it did.
// Every other frame goes through unchanged.
const request = window.requestAnimationFrame;
const TENTH_MS = 100;
const isTimerTick = (callback) => typeof callback === 'function'
  && String(callback).includes('performance.now()')
  && /\/statustracker-[\w-]+\.js/.test(new Error().stack || '');
window.requestAnimationFrame = function (callback) {
  if (!isTimerTick(callback)) return request.call(window, callback);
  if (!window.__gradio_session_hash__) return 0;
  setTimeout(() => request.call(window, callback), TENTH_MS);
  return 0;
};
})();
