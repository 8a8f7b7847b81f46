// A real DNS server for the tests (dns2) on 127.0.0.1 with a random UDP port, answering the records
// the test puts in `records`. Point the app at it with DNS_SERVERS=127.0.0.1:<port>.
import dns2 from "dns2";
import type { AddressInfo } from "node:net";

const { Packet } = dns2;

export type FakeRecord = { type: "A"; address: string } | { type: "CNAME"; domain: string } | { type: "TXT"; data: string };

export interface FakeDns {
  server: string;
  /** host name (lower case) → records */
  records: Map<string, FakeRecord[]>;
  set(host: string, ...records: FakeRecord[]): void;
  /** Questions received, as `TYPE name`. */
  questions: string[];
  close(): Promise<void>;
}

const TYPE_NAMES: Record<number, string> = { [Packet.TYPE.A]: "A", [Packet.TYPE.CNAME]: "CNAME", [Packet.TYPE.TXT]: "TXT", [Packet.TYPE.AAAA]: "AAAA" };

export async function startFakeDns(): Promise<FakeDns> {
  const records = new Map<string, FakeRecord[]>();
  const questions: string[] = [];
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      if (question) {
        const name = question.name.toLowerCase().replace(/\.$/, "");
        const type = TYPE_NAMES[question.type] ?? String(question.type);
        questions.push(`${type} ${name}`);
        for (const record of records.get(name) ?? []) {
          if (record.type !== type) continue;
          const base = { name: question.name, type: question.type, class: Packet.CLASS.IN, ttl: 60 };
          if (record.type === "A") response.answers.push({ ...base, address: record.address } as never);
          if (record.type === "CNAME") response.answers.push({ ...base, domain: record.domain } as never);
          if (record.type === "TXT") response.answers.push({ ...base, data: record.data } as never);
        }
      }
      void send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: "127.0.0.1" } });
  const port = (addresses.udp as AddressInfo).port;
  return {
    server: `127.0.0.1:${port}`,
    records,
    set: (host, ...list) => void records.set(host.toLowerCase(), list),
    questions,
    close: () => server.close(),
  };
}
