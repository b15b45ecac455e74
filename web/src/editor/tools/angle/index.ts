export { default } from './angle';
