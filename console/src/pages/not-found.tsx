import { PageTitle } from '../components/page.js';

export function NotFoundPage() {
  return (
    <>
      <PageTitle title="Page not found" />
      <p>
        There is no page here. <a href="/">Go to the overview</a>.
      </p>
    </>
  );
}
