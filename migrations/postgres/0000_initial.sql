CREATE TABLE "api_keys" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"service_account_id" text COLLATE "C" NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"prefix" text COLLATE "C" NOT NULL,
	"key_hash" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	"last_used_at" bigint,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "balances" (
	"account_id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"current" text COLLATE "C" NOT NULL,
	"available" text COLLATE "C",
	"currency" text COLLATE "C" NOT NULL,
	"as_of" bigint NOT NULL,
	"fetched_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bank_accounts" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"connection_id" text COLLATE "C" NOT NULL,
	"service_account_id" text COLLATE "C" NOT NULL,
	"external_id" text COLLATE "C" NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"type" text COLLATE "C" NOT NULL,
	"currency" text COLLATE "C" NOT NULL,
	"iban" text COLLATE "C",
	"mask" text COLLATE "C",
	"institution" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "connections" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"service_account_id" text COLLATE "C" NOT NULL,
	"provider" text COLLATE "C" NOT NULL,
	"external_id" text COLLATE "C" NOT NULL,
	"institution" text COLLATE "C" NOT NULL,
	"status" text COLLATE "C" NOT NULL,
	"error" text COLLATE "C",
	"provider_state" text COLLATE "C" DEFAULT '{}' NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"last_synced_at" bigint,
	"sync_lease_run_id" text COLLATE "C",
	"sync_lease_expires_at" bigint
);
--> statement-breakpoint
CREATE TABLE "deliveries" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"event_id" text COLLATE "C" NOT NULL,
	"endpoint_id" text COLLATE "C" NOT NULL,
	"kind" text COLLATE "C" DEFAULT 'event' NOT NULL,
	"status" text COLLATE "C" DEFAULT 'pending' NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" bigint,
	"lease_expires_at" bigint,
	"last_status_code" integer,
	"last_error" text COLLATE "C",
	"created_at" bigint NOT NULL,
	"completed_at" bigint
);
--> statement-breakpoint
CREATE TABLE "delivery_attempts" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"delivery_id" text COLLATE "C" NOT NULL,
	"attempt_number" integer NOT NULL,
	"started_at" bigint NOT NULL,
	"duration_ms" integer NOT NULL,
	"outcome" text COLLATE "C" NOT NULL,
	"status_code" integer,
	"error_class" text COLLATE "C",
	"error_message" text COLLATE "C"
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"service_account_id" text COLLATE "C" NOT NULL,
	"type" text COLLATE "C" NOT NULL,
	"body" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "instance_meta" (
	"key" text COLLATE "C" PRIMARY KEY NOT NULL,
	"value" text COLLATE "C" NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mail_outbox" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"service_account_id" text COLLATE "C",
	"to_address" text COLLATE "C" NOT NULL,
	"subject" text COLLATE "C" NOT NULL,
	"body" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	"sent_at" bigint,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text COLLATE "C",
	"next_attempt_at" bigint
);
--> statement-breakpoint
CREATE TABLE "rate_limit_counters" (
	"key" text COLLATE "C" NOT NULL,
	"window_start" bigint NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "rate_limit_counters_key_window_start_pk" PRIMARY KEY("key","window_start")
);
--> statement-breakpoint
CREATE TABLE "service_accounts" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"status" text COLLATE "C" DEFAULT 'sandbox' NOT NULL,
	"subscription_status" text COLLATE "C" DEFAULT 'none' NOT NULL,
	"payment_failed" boolean DEFAULT false NOT NULL,
	"disabled" boolean DEFAULT false NOT NULL,
	"demo" boolean DEFAULT false NOT NULL,
	"connect_enabled" boolean DEFAULT true NOT NULL,
	"data_generation" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"token_hash" text COLLATE "C" NOT NULL,
	"user_id" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	"last_seen_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sync_runs" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"connection_id" text COLLATE "C" NOT NULL,
	"trigger" text COLLATE "C" NOT NULL,
	"started_at" bigint NOT NULL,
	"finished_at" bigint,
	"outcome" text COLLATE "C" NOT NULL,
	"error" text COLLATE "C",
	"new_transactions" integer DEFAULT 0 NOT NULL,
	"events_raised" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "transactions" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"account_id" text COLLATE "C" NOT NULL,
	"external_id" text COLLATE "C" NOT NULL,
	"status" text COLLATE "C" NOT NULL,
	"amount" text COLLATE "C" NOT NULL,
	"currency" text COLLATE "C" NOT NULL,
	"booking_date" text COLLATE "C" NOT NULL,
	"value_date" text COLLATE "C",
	"description" text COLLATE "C" NOT NULL,
	"counterparty_name" text COLLATE "C",
	"merchant_name" text COLLATE "C",
	"booked_transaction_id" text COLLATE "C",
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"service_account_id" text COLLATE "C" NOT NULL,
	"email" text COLLATE "C" NOT NULL,
	"password_hash" text COLLATE "C",
	"is_operator" boolean DEFAULT false NOT NULL,
	"must_change_password" boolean DEFAULT false NOT NULL,
	"created_at" bigint NOT NULL,
	"last_login_at" bigint
);
--> statement-breakpoint
CREATE TABLE "verification_codes" (
	"endpoint_id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"code_hash" text COLLATE "C" NOT NULL,
	"attempts_used" integer DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"service_account_id" text COLLATE "C" NOT NULL,
	"url" text COLLATE "C" NOT NULL,
	"description" text COLLATE "C",
	"secret_salt" text COLLATE "C" NOT NULL,
	"secret_hash" text COLLATE "C" NOT NULL,
	"status" text COLLATE "C" DEFAULT 'active' NOT NULL,
	"verified_at" bigint,
	"failure_count" integer DEFAULT 0 NOT NULL,
	"disabled_reason" text COLLATE "C",
	"disabled_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_service_account_id_service_accounts_id_fk" FOREIGN KEY ("service_account_id") REFERENCES "public"."service_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "balances" ADD CONSTRAINT "balances_account_id_bank_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."bank_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank_accounts" ADD CONSTRAINT "bank_accounts_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank_accounts" ADD CONSTRAINT "bank_accounts_service_account_id_service_accounts_id_fk" FOREIGN KEY ("service_account_id") REFERENCES "public"."service_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_service_account_id_service_accounts_id_fk" FOREIGN KEY ("service_account_id") REFERENCES "public"."service_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_delivery_id_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_service_account_id_service_accounts_id_fk" FOREIGN KEY ("service_account_id") REFERENCES "public"."service_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD CONSTRAINT "mail_outbox_service_account_id_service_accounts_id_fk" FOREIGN KEY ("service_account_id") REFERENCES "public"."service_accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_runs" ADD CONSTRAINT "sync_runs_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_account_id_bank_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."bank_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_service_account_id_service_accounts_id_fk" FOREIGN KEY ("service_account_id") REFERENCES "public"."service_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_codes" ADD CONSTRAINT "verification_codes_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_service_account_id_service_accounts_id_fk" FOREIGN KEY ("service_account_id") REFERENCES "public"."service_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_unique" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_account_idx" ON "api_keys" USING btree ("service_account_id");--> statement-breakpoint
CREATE INDEX "bank_accounts_owner_idx" ON "bank_accounts" USING btree ("service_account_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "bank_accounts_external_unique" ON "bank_accounts" USING btree ("connection_id","external_id");--> statement-breakpoint
CREATE INDEX "connections_account_idx" ON "connections" USING btree ("service_account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "connections_external_unique" ON "connections" USING btree ("service_account_id","provider","external_id");--> statement-breakpoint
CREATE INDEX "deliveries_due_idx" ON "deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "deliveries_endpoint_idx" ON "deliveries" USING btree ("endpoint_id","created_at");--> statement-breakpoint
CREATE INDEX "deliveries_event_idx" ON "deliveries" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "delivery_attempts_delivery_idx" ON "delivery_attempts" USING btree ("delivery_id","attempt_number");--> statement-breakpoint
CREATE INDEX "events_account_idx" ON "events" USING btree ("service_account_id","created_at");--> statement-breakpoint
CREATE INDEX "events_created_idx" ON "events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "mail_outbox_pending_idx" ON "mail_outbox" USING btree ("sent_at","next_attempt_at");--> statement-breakpoint
CREATE UNIQUE INDEX "sessions_token_hash_unique" ON "sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "sync_runs_connection_idx" ON "sync_runs" USING btree ("connection_id","started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "transactions_external_unique" ON "transactions" USING btree ("account_id","external_id");--> statement-breakpoint
CREATE INDEX "transactions_page_idx" ON "transactions" USING btree ("account_id","booking_date","id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_unique" ON "users" USING btree ("email");--> statement-breakpoint
CREATE INDEX "users_account_idx" ON "users" USING btree ("service_account_id");--> statement-breakpoint
CREATE INDEX "webhook_endpoints_account_idx" ON "webhook_endpoints" USING btree ("service_account_id");