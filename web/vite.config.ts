import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = import.meta.dirname;

// The console is built next to the server (dist/web) and served by it at `/`; hashed files
// under /assets are cached for a year, index.html is revalidated (src/http/console.ts).
export default defineConfig({
  root: here,
  plugins: [react()],
  build: {
    outDir: path.resolve(here, '../dist/web'),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: true,
    chunkSizeWarningLimit: 1024,
  },
  server: {
    // `npm run dev:web` talks to a server started with `npm run dev` on :8080.
    proxy: { '/v2': 'http://localhost:8080', '/files': 'http://localhost:8080', '/auth': 'http://localhost:8080' },
  },
});
