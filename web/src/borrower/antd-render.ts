// antd-mobile 5 renders its imperative pieces (Toast, Dialog, Modal) with ReactDOM.render, which React 19
// removed; its documented bridge hands it createRoot instead. Imported first by main.tsx and by the test setup.
import { unstableSetRender } from 'antd-mobile';
import { createRoot, type Root } from 'react-dom/client';

const roots = new WeakMap<Element | DocumentFragment, Root>();

unstableSetRender((node, container) => {
  let root = roots.get(container);
  if (!root) {
    root = createRoot(container);
    roots.set(container, root);
  }
  root.render(node);
  return async () => {
    // Unmounting inside the render that asked for it would warn; wait for the current task to end.
    await new Promise((resolve) => setTimeout(resolve, 0));
    root.unmount();
    roots.delete(container);
  };
});
