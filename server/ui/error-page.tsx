const explanations: Record<number, { title: string; text: string }> = {
  400: { title: 'Bad request', text: 'The request could not be understood. Go back and try again.' },
  403: { title: 'Not allowed', text: 'You may not do this.' },
  404: { title: 'Page not found', text: 'There is no page at this address.' },
  405: { title: 'Not allowed here', text: 'This page cannot be used that way.' },
  413: { title: 'Too much', text: 'What was sent is larger than this page accepts.' },
  415: { title: 'Bad request', text: 'What was sent is not a form this page accepts.' },
  429: { title: 'Too many requests', text: 'Too many requests in a short time. Wait a little, then try again.' },
  500: { title: 'Something went wrong', text: 'The server could not answer. Try again in a moment.' },
};

/** A status without its own words gets those of its class. */
function explanationOf(status: number): { title: string; text: string } {
  return explanations[status] ?? explanations[status < 500 ? 400 : 500]!;
}

export function errorTitle(status: number): string {
  return explanationOf(status).title;
}

/** The body of an error page; `title` and `text` replace the status's stock heading and explanation. */
export function ErrorPage({ status, title, text, requestId }: { status: number; title?: string | undefined; text?: string | undefined; requestId?: string | undefined }) {
  const explanation = explanationOf(status);
  return (
    <section class="card" aria-labelledby="error-title">
      <h1 id="error-title">{title ?? explanation.title}</h1>
      <p>{text ?? explanation.text}</p>
      {requestId !== undefined && <p class="muted">{`Request id: ${requestId}`}</p>}
      <p>
        <a href="/">Go to the start page</a>
      </p>
    </section>
  );
}
