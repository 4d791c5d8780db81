-- See migrations/sqlite/0003: the JSON the API serves, kept by PostgreSQL in a generated column
-- (through an IMMUTABLE wrapper of to_json for text, which generated columns require), the
-- pending -> booked link in both directions, and the page order as the primary key.
CREATE FUNCTION svc_json_text(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT to_json(value)::text $$;--> statement-breakpoint
ALTER TABLE "transactions" DROP CONSTRAINT "transactions_pkey";--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_pkey" PRIMARY KEY("account_id","booking_date","id");--> statement-breakpoint
DROP INDEX "transactions_page_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "transactions_id_unique" ON "transactions" USING btree ("id");--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "pending_transaction_id" text COLLATE "C";--> statement-breakpoint
UPDATE "transactions" t SET "pending_transaction_id" = p."id" FROM "transactions" p WHERE p."booked_transaction_id" = t."id";--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "json" text COLLATE "C" GENERATED ALWAYS AS ('{"transaction_id":' || coalesce(svc_json_text("id"), 'null') ||
          ',"account_id":' || coalesce(svc_json_text("account_id"), 'null') ||
          ',"status":' || coalesce(svc_json_text("status"), 'null') ||
          ',"amount":' || coalesce(svc_json_text("amount"), 'null') ||
          ',"currency":' || coalesce(svc_json_text("currency"), 'null') ||
          ',"booking_date":' || coalesce(svc_json_text("booking_date"), 'null') ||
          ',"value_date":' || coalesce(svc_json_text("value_date"), 'null') ||
          ',"description":' || coalesce(svc_json_text("description"), 'null') ||
          ',"counterparty_name":' || coalesce(svc_json_text("counterparty_name"), 'null') ||
          ',"merchant_name":' || coalesce(svc_json_text("merchant_name"), 'null') ||
          ',"pending_transaction_id":' || coalesce(svc_json_text("pending_transaction_id"), 'null') ||
          ',"booked_transaction_id":' || coalesce(svc_json_text("booked_transaction_id"), 'null') || '}') STORED NOT NULL;
