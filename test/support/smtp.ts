// A real SMTP server on a free port for mail tests: it records each message as received (envelope
// recipients and raw data), and `mailFor` waits until an address has the given number of them.
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  to: string[];
  data: string;
}

export interface TestSmtp {
  url: string;
  received: ReceivedMail[];
  /** Resolves with every mail to `email` once there are at least `count`; throws after 10 s. */
  mailFor(email: string, count?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startSmtpServer(): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const waiters: (() => void)[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      let data = "";
      stream.on("data", (chunk) => (data += chunk));
      stream.on("end", () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), data });
        waiters.splice(0).forEach((w) => w());
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  const port = (smtp.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    async mailFor(email, count = 1) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const mails = received.filter((m) => m.to.includes(email));
        if (mails.length >= count) return mails;
        if (Date.now() > deadline) throw new Error(`no mail for ${email}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}
