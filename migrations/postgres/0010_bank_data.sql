CREATE TABLE "transaction_provider_ids" (
	"account_id" text COLLATE "C" NOT NULL,
	"provider_id" text COLLATE "C" NOT NULL,
	"transaction_id" text COLLATE "C" NOT NULL,
	"first_seen_at" bigint NOT NULL,
	"last_seen_at" bigint NOT NULL,
	CONSTRAINT "transaction_provider_ids_pkey" PRIMARY KEY("account_id","provider_id","transaction_id")
);
--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "notice" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "removed_at" bigint;--> statement-breakpoint
ALTER TABLE "transaction_provider_ids" ADD CONSTRAINT "transaction_provider_ids_account_id_bank_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."bank_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "transaction_provider_ids_transaction_idx" ON "transaction_provider_ids" USING btree ("transaction_id");--> statement-breakpoint
-- The ids rows were stored under so far are the first provider ids they were seen under.
INSERT INTO "transaction_provider_ids" ("account_id", "provider_id", "transaction_id", "first_seen_at", "last_seen_at")
  SELECT "account_id", "external_id", "id", "created_at", "updated_at" FROM "transactions";