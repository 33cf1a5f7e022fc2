import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  /** A new key (the next page) tries the children again. */
  resetKey: string;
  /** Shown in place of the children once they threw. */
  fallback: ReactNode;
  /** Told of each error caught (the borrower app reports it). */
  onError?: (error: Error, info: ErrorInfo) => void;
  children: ReactNode;
}

/**
 * A part of the page that throws while rendering (or whose chunk cannot be fetched) shows `fallback` in its place
 * instead of leaving the whole app blank; moving to another page (`resetKey`) tries again.
 */
export class ErrorBoundary extends Component<Props, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  componentDidCatch(error: Error, info: ErrorInfo): void {
    this.props.onError?.(error, info);
  }

  componentDidUpdate(previous: Props): void {
    if (this.state.failed && previous.resetKey !== this.props.resetKey) this.setState({ failed: false });
  }

  render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}
