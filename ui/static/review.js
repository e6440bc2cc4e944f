// The Review tab's keyboard map: single keys press the tab's buttons (ignored while typing in a
// field or while the tab is hidden), Ctrl+Z / Ctrl+Shift+Z (and Ctrl+Y) undo and redo, 1–9 select
// that statement. The map itself comes from ui/tabs/review.py (window.cinecapReviewKeys), the one
// place the keys are declared (docs/app.md lists them). The player hook, cinecapSeek, is
// ui/tabs/player.py's.
(() => {
  const keys = window.cinecapReviewKeys || {shortcuts: {}};
  const click = (id) => {
    const el = document.getElementById(id);
    if (el) { el.click(); return true; }
    return false;
  };
  const shown = () => {
    const t = document.getElementById('review-table');
    return !!t && t.offsetParent !== null;
  };
  // The queue order's radio buttons as one group for the arrow keys (Gradio names each input
  // apart, so the browser's own group keys do not move between them): the next or previous
  // order is focused and chosen, as in a native radio group.
  document.addEventListener('keydown', (e) => {
    const t = e.target;
    const group = t && t.closest && t.closest('#review-order');
    if (!group || !t.matches('input[type=radio]') || e.ctrlKey || e.metaKey || e.altKey) return;
    const step = {ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1}[e.key];
    if (!step) return;
    const radios = [...group.querySelectorAll('input[type=radio]')];
    const next = radios[(radios.indexOf(t) + step + radios.length) % radios.length];
    e.preventDefault();
    next.focus();
    next.click();
  }, true);
  document.addEventListener('keydown', (e) => {
    const t = e.target;
    const tag = (t && t.tagName || '').toLowerCase();
    if (tag === 'input' || tag === 'textarea' || tag === 'select' ||
        (t && t.isContentEditable) || !shown()) return;
    if ((e.ctrlKey || e.metaKey) && !e.altKey && (e.key === 'z' || e.key === 'Z' || e.key === 'y')) {
      e.preventDefault();
      click(e.shiftKey || e.key === 'y' ? keys.redo : keys.undo);
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (/^[1-9]$/.test(e.key)) {
      const box = document.querySelector(`#${keys.goto} textarea`);
      if (!box) return;
      e.preventDefault();
      box.value = e.key;
      box.dispatchEvent(new Event('input', {bubbles: true}));
      click(`${keys.goto}-button`);
      return;
    }
    // The grid's own arrow keys move between its cells.
    if (e.key.startsWith('Arrow') && t && t.closest && t.closest('[role=grid]')) return;
    const id = keys.shortcuts[e.key];
    if (id && click(id)) e.preventDefault();
  });
})();
