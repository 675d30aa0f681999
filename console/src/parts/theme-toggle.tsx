import { useEffect, useState } from 'preact/hooks';

type Theme = 'system' | 'light' | 'dark';
const KEY = 'diglot.console.theme';
const NEXT: Record<Theme, Theme> = { system: 'light', light: 'dark', dark: 'system' };

/** Light and dark follow the system (prefers-color-scheme) until the person picks one; the pick is remembered (it is no secret). */
export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem(KEY) as Theme | null) ?? 'system');
  useEffect(() => {
    if (theme === 'system') {
      delete document.documentElement.dataset['theme'];
      localStorage.removeItem(KEY);
    } else {
      document.documentElement.dataset['theme'] = theme;
      localStorage.setItem(KEY, theme);
    }
  }, [theme]);
  return (
    <button type="button" class="theme" onClick={() => setTheme(NEXT[theme])} aria-label={`Theme: ${theme}. Switch to ${NEXT[theme]}`}>
      {theme === 'dark' ? '☾' : theme === 'light' ? '☀' : '◐'} <span class="wide">{theme}</span>
    </button>
  );
}
