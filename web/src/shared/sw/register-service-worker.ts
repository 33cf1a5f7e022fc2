// SPEC.md §8 / PRODUCT.md §2: a failed registration is ignored silently; there is nothing a visitor could do.
export function registerServiceWorker(url = '/sw.js', scope = '/'): void {
  if (!('serviceWorker' in navigator)) return;
  const register = () => {
    navigator.serviceWorker.register(url, { scope }).catch(() => undefined);
  };
  if (document.readyState === 'complete') register();
  else window.addEventListener('load', register, { once: true });
}
