(() => {
if (window.cinecapStatusLine) return;
// A status line is red while its text is an error (it starts with the error mark; the text
// itself stays plain for API clients). Called by each status line's change event
// (ui/tabs/status.py), so nothing polls the page.
window.cinecapStatusLine = (id, value, mark) => {
  const el = document.getElementById(id);
  if (el) el.classList.toggle('status-error', String(value || '').startsWith(mark));
};
})();
