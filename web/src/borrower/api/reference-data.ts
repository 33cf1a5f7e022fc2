// Reference data for the certification forms (docs/API-BORROWER.md, "Reference data"): public, localised
// by Accept-Language (which follows the market), and shipped with the server binary, so it does not change
// while the app is open. The shapes are written out by hand until the OpenAPI document describes them.
import { useQuery } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { HttpClient } from '@/shared/api/http';
import { useApiMarket } from './market-code';
import { queryKeys } from './query-keys';
import type { ApiMarket } from './types';

export const ENUMS_PATH = '/api/v1/borrower/enums';
export const CITIES_PATH = '/api/v1/borrower/cities';

/** One choice of an enumeration: `code` travels, `label` is shown. */
export interface EnumOption {
  code: string;
  label: string;
}

export interface BankOption extends EnumOption {
  /** The first four letters of the bank's IFSC (India); empty where there is no IFSC. */
  ifscPrefix: string;
}

/** `GET /enums?market=`: the choices and the market's rules the forms follow. */
export interface Enums {
  market: ApiMarket;
  gender: EnumOption[];
  education: EnumOption[];
  maritalStatus: EnumOption[];
  residenceType: EnumOption[];
  employmentType: EnumOption[];
  relation: EnumOption[];
  banks: BankOption[];
  /** India asks for monthly income, Indonesia for annual income. */
  incomePeriod: 'month' | 'year';
  /** The market's minimum income in minor units, per `incomePeriod`. */
  minIncome: number;
  /** India: PAN (`pattern` as a regular expression); Indonesia: NIK, 16 digits. */
  idNumber: { kind: 'pan' | 'nik'; pattern: string; example: string };
  postalCode: { digits: number };
  accountNumber: { minDigits: number; maxDigits: number };
  ifscRequired: boolean;
}

export interface City {
  code: string;
  name: string;
}

/** A state or union territory (India), a province (Indonesia), with its cities. */
export interface Region {
  code: string;
  name: string;
  cities: City[];
}

/** `GET /cities?market=`. */
export interface Cities {
  market: ApiMarket;
  regions: Region[];
}

export function fetchEnums(api: HttpClient, market: ApiMarket): Promise<Enums> {
  return api.get<Enums>(`${ENUMS_PATH}?market=${market}`);
}

export function fetchCities(api: HttpClient, market: ApiMarket): Promise<Cities> {
  return api.get<Cities>(`${CITIES_PATH}?market=${market}`);
}

// Static for the life of a server build: fetched once per visit and kept while the app is open.
const STATIC = { staleTime: Infinity, gcTime: 24 * 60 * 60_000 } as const;

/** The enumerations and rules of the borrower's market. */
export function useEnums() {
  const api = useApiClient();
  const market = useApiMarket();
  return useQuery({ queryKey: queryKeys.enums(market), queryFn: () => fetchEnums(api, market), ...STATIC });
}

/** The regions of the borrower's market and their cities. */
export function useCities(options: { enabled?: boolean } = {}) {
  const api = useApiClient();
  const market = useApiMarket();
  return useQuery({ queryKey: queryKeys.cities(market), queryFn: () => fetchCities(api, market), enabled: options.enabled, ...STATIC });
}
