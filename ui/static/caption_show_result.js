() => {
  if (window.innerWidth > 700) return [];
  const s = document.querySelector('#caption-status textarea');
  const bad = s && s.value.startsWith('⚠');
  const el = document.querySelector(bad ? '#caption-status' : '#caption-video');
  if (el) el.scrollIntoView({block: 'start'});
  return [];
}
