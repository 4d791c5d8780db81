// Names the sandbox bank draws from. All fictitious-but-plausible; amounts in euro cents.

export interface MerchantSpec {
  name: string;
  /** Shown in the statement text after the merchant name. */
  city: string;
  minCents: number;
  maxCents: number;
}

/** Everyday card spend on the current account's debit card. */
export const everydayMerchants: readonly MerchantSpec[] = [
  { name: "REWE", city: "Berlin", minCents: 850, maxCents: 9_500 },
  { name: "Lidl", city: "Berlin", minCents: 420, maxCents: 6_800 },
  { name: "Aldi Nord", city: "Hamburg", minCents: 390, maxCents: 5_900 },
  { name: "Edeka", city: "Munich", minCents: 610, maxCents: 8_200 },
  { name: "dm-drogerie markt", city: "Berlin", minCents: 250, maxCents: 3_400 },
  { name: "Rossmann", city: "Cologne", minCents: 199, maxCents: 2_900 },
  { name: "Starbucks", city: "Berlin", minCents: 320, maxCents: 1_150 },
  { name: "Back-Factory", city: "Frankfurt", minCents: 180, maxCents: 950 },
  { name: "BVG Ticket", city: "Berlin", minCents: 320, maxCents: 980 },
  { name: "Shell", city: "Potsdam", minCents: 2_500, maxCents: 8_900 },
  { name: "Vapiano", city: "Berlin", minCents: 1_290, maxCents: 4_800 },
  { name: "IKEA", city: "Berlin", minCents: 990, maxCents: 24_900 },
];

/** Larger and online spend on the credit card. */
export const cardMerchants: readonly MerchantSpec[] = [
  { name: "Amazon Marketplace", city: "Luxembourg", minCents: 899, maxCents: 15_900 },
  { name: "Zalando", city: "Berlin", minCents: 1_995, maxCents: 18_900 },
  { name: "Deutsche Bahn", city: "Berlin", minCents: 1_790, maxCents: 13_900 },
  { name: "Lufthansa", city: "Frankfurt", minCents: 8_900, maxCents: 49_900 },
  { name: "Booking.com", city: "Amsterdam", minCents: 7_900, maxCents: 39_000 },
  { name: "Uber", city: "Amsterdam", minCents: 890, maxCents: 4_600 },
  { name: "MediaMarkt", city: "Munich", minCents: 1_999, maxCents: 59_900 },
  { name: "Apple Services", city: "Cork", minCents: 99, maxCents: 2_999 },
];

export const employers = [
  "Nordlicht Software GmbH",
  "Rheinwerk Logistik AG",
  "Alpenblick Versicherung AG",
  "Havelpark Kliniken GmbH",
  "Spreewald Energie GmbH",
] as const;

export const landlords = [
  "Wohnbau Mitte GmbH",
  "Hausverwaltung Krause",
  "Immobilien Schneider KG",
  "Genossenschaft Am Park eG",
] as const;

export const friends = [
  "Anna Becker",
  "Jonas Weber",
  "Lea Hoffmann",
  "Lukas Wagner",
  "Marie Schulz",
  "Paul Fischer",
] as const;

/** Monthly direct debits on the current account: payee, day of month, amount range. */
export const directDebits = [
  { payee: "Stadtwerke Sandbox", text: "Electricity", day: 3, minCents: 4_500, maxCents: 12_000 },
  { payee: "Telekom Deutschland", text: "Mobile phone", day: 10, minCents: 1_999, maxCents: 4_999 },
  {
    payee: "Netflix International",
    text: "Subscription",
    day: 14,
    minCents: 1_299,
    maxCents: 1_799,
  },
  { payee: "Urban Sports Club", text: "Membership", day: 20, minCents: 2_900, maxCents: 5_900 },
] as const;

export const monthNames = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
] as const;
