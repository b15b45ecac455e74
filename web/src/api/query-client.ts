import { QueryClient } from '@tanstack/react-query';
import { ApiError } from './client';

/** One cache for the console; 4xx answers are not retried (asking again will not change them). */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      refetchOnWindowFocus: false,
      retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 2,
    },
  },
});
